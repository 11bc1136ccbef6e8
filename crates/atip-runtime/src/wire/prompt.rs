//! The safety section of a system prompt (spec §7.1 step 3, §11): which commands are risky and
//! how to treat them, derived from effects.

use crate::effects::Effects;
use crate::tool::ToolSpec;

/// A Markdown system-prompt section grouping commands by risk: destructive, not reversible,
/// billable, network, interactive — each group with one line of guidance and its commands, each
/// command with its description. Commands whose metadata leaves `destructive` undeclared get a
/// group of their own: unknown is not safe (spec §11.1), and the policy asks a person before
/// running them. Commands that declare themselves harmless are not listed. Returns an empty
/// string for no tools.
///
/// `tools` are the commands' specs, e.g. a generated module's `TOOLS` or
/// `LoadedCommands::specs()` for metadata loaded at run time.
pub fn safety_prompt<'a, I>(tools: I) -> String
where
    I: IntoIterator<Item = &'a ToolSpec>,
{
    let tools: Vec<&ToolSpec> = tools.into_iter().collect();
    if tools.is_empty() {
        return String::new();
    }
    type Pick = fn(&Effects) -> bool;
    let groups: [(&str, &str, Pick); 6] = [
        (
            "Destructive",
            "They permanently destroy data. Run one only when the user asked for exactly that, and say what will be lost first.",
            |e| e.destructive == Some(true),
        ),
        (
            "Not reversible",
            "Their effect cannot be undone. Make sure the arguments are right before calling.",
            |e| e.reversible == Some(false),
        ),
        (
            "Billable",
            "They may cost money. Call them only when the task needs it.",
            |e| e.billable() == Some(true),
        ),
        (
            "Network",
            "They reach other machines. Do not send secrets or private data the user did not ask to send.",
            |e| e.network == Some(true),
        ),
        (
            "Interactive",
            "They need a terminal or typed input and will be refused when run unattended. Prefer another command.",
            |e| !e.interactive_requirements().is_empty(),
        ),
        (
            "Effects not declared",
            "Their metadata does not say whether they destroy data, so treat them as if they might: a person confirms each call.",
            |e| e.destructive.is_none(),
        ),
    ];
    let mut out = String::from("## Tool safety\n\n");
    out.push_str(
        "Commands are checked against a policy before they run; a refused or unconfirmed command \
         returns an error instead of running.\n",
    );
    let mut listed = 0;
    for (title, guidance, pick) in groups {
        // A command is listed when it or any of its parameters that declare effects of their
        // own is picked; one picked only through parameters says which.
        let picked: Vec<&&ToolSpec> = tools
            .iter()
            .filter(|t| pick(&t.effects) || pick(&t.widest_effects()))
            .collect();
        if picked.is_empty() {
            continue;
        }
        listed += 1;
        out.push_str(&format!("\n### {title}\n\n{guidance}\n\n"));
        for t in picked {
            let description = t.description.trim();
            let only_with = if pick(&t.effects) {
                String::new()
            } else {
                let labels: Vec<String> = t
                    .params_with_effects()
                    .filter(|(_, e)| pick(&t.effects.raised_by(e)))
                    .map(|(p, _)| format!("`{}`", p.argv.label()))
                    .collect();
                format!(" (only with {})", labels.join(" or "))
            };
            if description.is_empty() {
                out.push_str(&format!("- `{}`{only_with}\n", t.name));
            } else {
                out.push_str(&format!(
                    "- `{}`{only_with}: {}\n",
                    t.name,
                    one_line(description)
                ));
            }
        }
    }
    if listed == 0 {
        out.push_str(&format!(
            "\nAll {} commands declare that they destroy nothing and are reversible, free, offline and non-interactive, or leave only these last points unsaid.\n",
            tools.len()
        ));
    }
    out
}

/// The first line of a description, so that a list item stays one line.
fn one_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default().trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn tool(name: &'static str, description: &'static str, effects: &str) -> ToolSpec {
        ToolSpec {
            name: Cow::Borrowed(name),
            title: Cow::Borrowed(name),
            path: Cow::Borrowed(&[]),
            description: Cow::Borrowed(description),
            effects: serde_json::from_str(effects).unwrap(),
            params: Cow::Borrowed(&[]),
        }
    }

    fn section(p: &str, title: &str) -> String {
        let start = p
            .find(&format!("### {title}\n"))
            .unwrap_or_else(|| panic!("{title} missing:\n{p}"));
        let rest = &p[start + 4..];
        rest[..rest.find("\n### ").unwrap_or(rest.len())].to_owned()
    }

    #[test]
    fn groups_commands_by_risk_with_their_descriptions() {
        let tools = [
            tool(
                "git_clean",
                "Delete untracked files\nmore",
                r#"{"destructive": true, "reversible": false}"#,
            ),
            tool(
                "git_push",
                "Update remote refs",
                r#"{"destructive": false, "network": true, "reversible": false}"#,
            ),
            tool(
                "gh_auth_login",
                "Log in",
                r#"{"destructive": false, "interactive": {"stdin": "password"}}"#,
            ),
            tool(
                "git_log",
                "Show history",
                r#"{"destructive": false, "network": false}"#,
            ),
        ];
        let p = safety_prompt(&tools);
        assert!(p.starts_with("## Tool safety\n"));
        assert!(section(&p, "Destructive").contains("- `git_clean`: Delete untracked files\n"));
        assert!(!section(&p, "Destructive").contains("git_push"));
        assert!(section(&p, "Not reversible")
            .contains("- `git_clean`: Delete untracked files\n- `git_push`: Update remote refs"));
        assert!(section(&p, "Network").contains("- `git_push`"));
        assert!(section(&p, "Interactive").contains("- `gh_auth_login`: Log in"));
        assert!(!p.contains("git_log"));
        assert!(!p.contains("### Billable") && !p.contains("### Effects not declared"));
    }

    #[test]
    fn commands_that_declare_nothing_are_named_not_called_safe() {
        assert_eq!(safety_prompt([]), "");
        let tools = [
            tool("rm", "Remove files", "{}"),
            tool("ls", "List", r#"{"destructive": false}"#),
        ];
        let p = safety_prompt(&tools);
        assert!(
            section(&p, "Effects not declared").contains("- `rm`: Remove files"),
            "{p}"
        );
        assert!(!p.contains("`ls`"));
        assert!(
            !p.contains("All "),
            "never claims every command is harmless: {p}"
        );
        let harmless = [tool("ls", "List", r#"{"destructive": false}"#)];
        let p = safety_prompt(&harmless);
        assert!(p.contains("All 1 commands declare"), "{p}");
    }
}
