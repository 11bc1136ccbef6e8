//! The safety section of a system prompt (spec §7.1 step 3, §11): which commands are risky and
//! how to treat them, derived from effects.

use crate::effects::Effects;

/// A Markdown system-prompt section grouping commands by risk: destructive, not reversible,
/// billable, network, interactive; each group with one line of guidance and its commands.
/// Commands with none of these risks are not listed. Returns an empty string for no tools.
///
/// `tools` are `(flattened name, merged effects)` pairs, e.g. a generated module's `EFFECTS`
/// table or the commands of a document loaded at run time.
pub fn safety_prompt<'a, I>(tools: I) -> String
where
    I: IntoIterator<Item = (&'a str, &'a Effects)>,
{
    let tools: Vec<(&str, &Effects)> = tools.into_iter().collect();
    if tools.is_empty() {
        return String::new();
    }
    type Pick = fn(&Effects) -> bool;
    let groups: [(&str, &str, Pick); 5] = [
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
    ];
    let mut out = String::from("## Tool safety\n\n");
    out.push_str(
        "Commands are checked against a policy before they run; a refused or unconfirmed command \
         returns an error instead of running.\n",
    );
    let mut any = false;
    for (title, guidance, pick) in groups {
        let names: Vec<&str> = tools
            .iter()
            .filter(|(_, e)| pick(e))
            .map(|(n, _)| *n)
            .collect();
        if names.is_empty() {
            continue;
        }
        any = true;
        out.push_str(&format!("\n### {title}\n\n{guidance}\n\n"));
        for n in names {
            out.push_str(&format!("- `{n}`\n"));
        }
    }
    if !any {
        out.push_str(&format!(
            "\nNone of the {} commands declares destructive, irreversible, billable, network or interactive effects.\n",
            tools.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fx(json: &str) -> Effects {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn groups_commands_by_risk() {
        let clean = fx(r#"{"destructive": true, "reversible": false}"#);
        let push = fx(r#"{"network": true, "reversible": false}"#);
        let login = fx(r#"{"interactive": {"stdin": "password"}}"#);
        let log = fx(r#"{"network": false}"#);
        let p = safety_prompt([
            ("git_clean", &clean),
            ("git_push", &push),
            ("gh_auth_login", &login),
            ("git_log", &log),
        ]);
        assert!(p.starts_with("## Tool safety\n"));
        let section = |t: &str| {
            let start = p
                .find(&format!("### {t}\n"))
                .unwrap_or_else(|| panic!("{t} missing:\n{p}"));
            let rest = &p[start + 4..];
            rest[..rest.find("\n### ").unwrap_or(rest.len())].to_owned()
        };
        assert!(section("Destructive").contains("- `git_clean`"));
        assert!(!section("Destructive").contains("git_push"));
        assert!(section("Not reversible").contains("- `git_clean`\n- `git_push`"));
        assert!(section("Network").contains("- `git_push`"));
        assert!(section("Interactive").contains("- `gh_auth_login`"));
        assert!(!p.contains("git_log"));
        assert!(!p.contains("### Billable"));
    }

    #[test]
    fn empty_for_no_tools_and_a_note_for_harmless_ones() {
        assert_eq!(safety_prompt([]), "");
        let p = safety_prompt([("ls", &Effects::UNKNOWN)]);
        assert!(p.contains("None of the 1 commands declares"), "{p}");
    }
}
