//! Side-effect declarations (ATIP spec §3.6) and their conservative merge along a command path.
//!
//! [`Effects`] is both the serde model of an `effects` object and the value the generator
//! emits as a `const` for every command, so its list fields are `Cow<'static, …>`: borrowed
//! in generated constants, owned when loaded at run time.
//!
//! Every field is optional and `None` means *unknown*: nothing in the metadata says either
//! way. Merging never turns unknown into `false`.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Text that is `&'static str` in generated constants and `String` when loaded at run time.
pub type Text = Cow<'static, str>;

/// A list of [`Text`], borrowed in generated constants and owned when loaded at run time.
pub type TextList = Cow<'static, [Text]>;

/// The `effects` object of a tool or command (spec §3.6).
///
/// Serialises to the spec's JSON shape with unknown (`None`) fields omitted.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Effects {
    /// `filesystem`: what the command does to files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<FilesystemEffects>,
    /// `network`: the command makes network requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<bool>,
    /// `subprocess`: the command starts other programs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subprocess: Option<bool>,
    /// `idempotent`: running it twice has the same effect as once (safe to retry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// `reversible`: its effect can be undone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reversible: Option<bool>,
    /// `destructive`: it permanently destroys data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// `creates`: kinds of resources it creates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creates: Option<TextList>,
    /// `modifies`: kinds of resources it modifies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifies: Option<TextList>,
    /// `deletes`: kinds of resources it deletes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletes: Option<TextList>,
    /// `interactive`: what it needs from a terminal or standard input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interactive: Option<Interactive>,
    /// `cost`: whether and how much running it costs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// `duration`: how long it typically runs and its suggested timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<DurationHint>,
}

/// `effects.filesystem` (spec §3.6).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FilesystemEffects {
    /// `read`: reads files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<bool>,
    /// `write`: writes files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<bool>,
    /// `delete`: deletes files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete: Option<bool>,
    /// `paths`: the paths it touches, as declared (not expanded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<TextList>,
}

/// `effects.interactive` (spec §3.6).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Interactive {
    /// `stdin`: what the command expects on standard input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<StdinMode>,
    /// `prompts`: it may stop and ask for confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<bool>,
    /// `tty`: it needs a terminal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tty: Option<bool>,
}

/// `effects.interactive.stdin` values, ordered from least to most demanding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StdinMode {
    /// `"none"`: no input expected.
    None,
    /// `"optional"`: reads input if given, works without.
    Optional,
    /// `"required"`: blocks waiting for input.
    Required,
    /// `"password"`: prompts for sensitive input.
    Password,
}

impl StdinMode {
    /// The spec's spelling of the value.
    pub const fn as_str(self) -> &'static str {
        match self {
            StdinMode::None => "none",
            StdinMode::Optional => "optional",
            StdinMode::Required => "required",
            StdinMode::Password => "password",
        }
    }
}

/// `effects.cost` (spec §3.6).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Cost {
    /// `estimate`: rough cost class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<CostEstimate>,
    /// `billable`: running it may incur a charge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billable: Option<bool>,
}

/// `effects.cost.estimate` values, ordered from cheapest to most expensive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CostEstimate {
    /// `"free"`
    Free,
    /// `"low"`
    Low,
    /// `"medium"`
    Medium,
    /// `"high"`
    High,
}

impl CostEstimate {
    /// The spec's spelling of the value.
    pub const fn as_str(self) -> &'static str {
        match self {
            CostEstimate::Free => "free",
            CostEstimate::Low => "low",
            CostEstimate::Medium => "medium",
            CostEstimate::High => "high",
        }
    }
}

/// `effects.duration` (spec §3.6): free-form hints such as `"1-5s"` and `"60s"`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DurationHint {
    /// `typical`: usual run time range, `^[0-9]+-[0-9]+[smh]$` (e.g. `"1-5s"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typical: Option<Text>,
    /// `timeout`: suggested timeout, `^[0-9]+[smh]$` (e.g. `"60s"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Text>,
}

impl Effects {
    /// Effects about which nothing is known: every field `None`.
    pub const UNKNOWN: Effects = Effects {
        filesystem: None,
        network: None,
        subprocess: None,
        idempotent: None,
        reversible: None,
        destructive: None,
        creates: None,
        modifies: None,
        deletes: None,
        interactive: None,
        cost: None,
        duration: None,
    };

    /// `self` with `filesystem` set. `const`, for generated code:
    /// `Effects::UNKNOWN.with_network(true).with_destructive(false)`.
    pub const fn with_filesystem(mut self, filesystem: FilesystemEffects) -> Self {
        // Assigning would drop the old value, which `const fn` cannot do.
        std::mem::forget(self.filesystem.replace(filesystem));
        self
    }

    /// `self` with `network` set.
    pub const fn with_network(mut self, network: bool) -> Self {
        self.network = Some(network);
        self
    }

    /// `self` with `subprocess` set.
    pub const fn with_subprocess(mut self, subprocess: bool) -> Self {
        self.subprocess = Some(subprocess);
        self
    }

    /// `self` with `idempotent` set.
    pub const fn with_idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = Some(idempotent);
        self
    }

    /// `self` with `reversible` set.
    pub const fn with_reversible(mut self, reversible: bool) -> Self {
        self.reversible = Some(reversible);
        self
    }

    /// `self` with `destructive` set.
    pub const fn with_destructive(mut self, destructive: bool) -> Self {
        self.destructive = Some(destructive);
        self
    }

    /// `self` with `creates` set.
    pub const fn with_creates(mut self, creates: TextList) -> Self {
        // Assigning would drop the old value, which `const fn` cannot do.
        std::mem::forget(self.creates.replace(creates));
        self
    }

    /// `self` with `modifies` set.
    pub const fn with_modifies(mut self, modifies: TextList) -> Self {
        // Assigning would drop the old value, which `const fn` cannot do.
        std::mem::forget(self.modifies.replace(modifies));
        self
    }

    /// `self` with `deletes` set.
    pub const fn with_deletes(mut self, deletes: TextList) -> Self {
        // Assigning would drop the old value, which `const fn` cannot do.
        std::mem::forget(self.deletes.replace(deletes));
        self
    }

    /// `self` with `interactive` set.
    pub const fn with_interactive(mut self, interactive: Interactive) -> Self {
        self.interactive = Some(interactive);
        self
    }

    /// `self` with `cost` set.
    pub const fn with_cost(mut self, cost: Cost) -> Self {
        self.cost = Some(cost);
        self
    }

    /// `self` with `duration` set.
    pub const fn with_duration(mut self, duration: DurationHint) -> Self {
        // Assigning would drop the old value, which `const fn` cannot do.
        std::mem::forget(self.duration.replace(duration));
        self
    }

    /// Merges the effects of a more specific level (`inner`, e.g. a command) into those of an
    /// enclosing level (`self`, e.g. the tool or a parent command), conservatively:
    ///
    /// * risk flags — `destructive`, `network`, `subprocess`, `filesystem.read/write/delete`,
    ///   `cost.billable`, `interactive.prompts/tty` — are OR-ed: `true` at any level wins;
    /// * `reversible` and `idempotent` are AND-ed: `false` at any level wins;
    /// * `cost.estimate` takes the maximum, `interactive.stdin` the most demanding mode;
    /// * `creates`/`modifies`/`deletes`/`filesystem.paths` are unions in declaration order;
    /// * `duration` describes the command itself, so the most specific declaration wins;
    /// * a field no level declares stays `None` (unknown), never `false`.
    pub fn merged_with(&self, inner: &Effects) -> Effects {
        Effects {
            filesystem: merge_opt(&self.filesystem, &inner.filesystem, |a, b| {
                FilesystemEffects {
                    read: any(a.read, b.read),
                    write: any(a.write, b.write),
                    delete: any(a.delete, b.delete),
                    paths: union(&a.paths, &b.paths),
                }
            }),
            network: any(self.network, inner.network),
            subprocess: any(self.subprocess, inner.subprocess),
            idempotent: all(self.idempotent, inner.idempotent),
            reversible: all(self.reversible, inner.reversible),
            destructive: any(self.destructive, inner.destructive),
            creates: union(&self.creates, &inner.creates),
            modifies: union(&self.modifies, &inner.modifies),
            deletes: union(&self.deletes, &inner.deletes),
            interactive: merge_opt(&self.interactive, &inner.interactive, |a, b| Interactive {
                stdin: a.stdin.max(b.stdin),
                prompts: any(a.prompts, b.prompts),
                tty: any(a.tty, b.tty),
            }),
            cost: merge_opt(&self.cost, &inner.cost, |a, b| Cost {
                estimate: a.estimate.max(b.estimate),
                billable: any(a.billable, b.billable),
            }),
            duration: merge_opt(&self.duration, &inner.duration, |a, b| DurationHint {
                typical: b.typical.clone().or_else(|| a.typical.clone()),
                timeout: b.timeout.clone().or_else(|| a.timeout.clone()),
            }),
        }
    }

    /// The effects of a call that gives a parameter declaring `param` (its
    /// `x-atip-rust.effects`): `self` (the command's merged effects) with every risk `param`
    /// declares added, and nothing `param` declares taken as evidence of safety. A parameter
    /// can make a call riskier, never safer, and never turns the command's unknown into a
    /// known-safe value:
    ///
    /// * risk flags (`destructive`, `network`, `subprocess`, `filesystem.read/write/delete`,
    ///   `cost.billable`, `interactive.prompts/tty`) become `true` when `param` says `true`,
    ///   else stay as `self` has them;
    /// * `reversible` and `idempotent` become `false` when `param` says `false`, else stay;
    /// * `interactive.stdin` becomes `required` or `password` when `param` says so, else stays;
    /// * `cost.estimate` rises to `param`'s when `self` declares a lower one, and to `high` when
    ///   `self` declares none and `param` says `high`; a lower estimate where `self` has none
    ///   is not taken;
    /// * `creates`/`modifies`/`deletes`/`filesystem.paths` are unions (the parameter's
    ///   declared needs); `duration` stays the command's.
    pub fn raised_by(&self, param: &Effects) -> Effects {
        let raise = |own: Option<bool>, by: Option<bool>, risky: bool| {
            if by == Some(risky) {
                Some(risky)
            } else {
                own
            }
        };
        let fs_own = self.filesystem.clone().unwrap_or_default();
        let fs_by = param.filesystem.clone().unwrap_or_default();
        let filesystem = if self.filesystem.is_none()
            && [fs_by.read, fs_by.write, fs_by.delete]
                .iter()
                .all(|v| *v != Some(true))
            && fs_by.paths.is_none()
        {
            None
        } else {
            Some(FilesystemEffects {
                read: raise(fs_own.read, fs_by.read, true),
                write: raise(fs_own.write, fs_by.write, true),
                delete: raise(fs_own.delete, fs_by.delete, true),
                paths: union(&fs_own.paths, &fs_by.paths),
            })
        };
        let interactive = match (&self.interactive, &param.interactive) {
            (own, None) => own.clone(),
            (own, Some(by)) => {
                let base = own.clone().unwrap_or_default();
                let stdin = match by.stdin {
                    Some(s @ (StdinMode::Required | StdinMode::Password)) => {
                        Some(base.stdin.map_or(s, |o| o.max(s)))
                    }
                    _ => base.stdin,
                };
                let raised = Interactive {
                    stdin,
                    prompts: raise(base.prompts, by.prompts, true),
                    tty: raise(base.tty, by.tty, true),
                };
                (own.is_some() || raised != Interactive::default()).then_some(raised)
            }
        };
        let cost = match (&self.cost, &param.cost) {
            (own, None) => own.clone(),
            (own, Some(by)) => {
                let base = own.clone().unwrap_or_default();
                let estimate = match (base.estimate, by.estimate) {
                    (Some(o), Some(b)) => Some(o.max(b)),
                    (None, Some(CostEstimate::High)) => Some(CostEstimate::High),
                    (o, _) => o,
                };
                let raised = Cost {
                    estimate,
                    billable: raise(base.billable, by.billable, true),
                };
                (own.is_some() || raised != Cost::default()).then_some(raised)
            }
        };
        Effects {
            filesystem,
            network: raise(self.network, param.network, true),
            subprocess: raise(self.subprocess, param.subprocess, true),
            idempotent: raise(self.idempotent, param.idempotent, false),
            reversible: raise(self.reversible, param.reversible, false),
            destructive: raise(self.destructive, param.destructive, true),
            creates: union(&self.creates, &param.creates),
            modifies: union(&self.modifies, &param.modifies),
            deletes: union(&self.deletes, &param.deletes),
            interactive,
            cost,
            duration: self.duration.clone(),
        }
    }

    /// Folds [`Effects::merged_with`] over the levels of a command path, outermost first
    /// (tool, then each ancestor command, then the command itself). Missing levels are skipped.
    pub fn merge_path<'a>(levels: impl IntoIterator<Item = Option<&'a Effects>>) -> Effects {
        levels
            .into_iter()
            .flatten()
            .fold(Effects::UNKNOWN, |acc, level| acc.merged_with(level))
    }

    /// The fields this level declared that the conservative merge changed, as
    /// `(field, declared, merged)`: e.g. a command declaring `destructive: false` inside a group
    /// declaring `destructive: true` gives `("destructive", false, true)`. `merged` is the
    /// result of merging `self` into its enclosing levels ([`Effects::merged_with`]).
    pub fn overridden_in(&self, merged: &Effects) -> Vec<(&'static str, bool, bool)> {
        let pairs = [
            ("destructive", self.destructive, merged.destructive),
            ("reversible", self.reversible, merged.reversible),
            ("idempotent", self.idempotent, merged.idempotent),
            ("network", self.network, merged.network),
            ("subprocess", self.subprocess, merged.subprocess),
            (
                "filesystem.write",
                self.filesystem_write(),
                merged.filesystem_write(),
            ),
            (
                "filesystem.delete",
                self.filesystem_delete(),
                merged.filesystem_delete(),
            ),
            ("cost.billable", self.billable(), merged.billable()),
        ];
        pairs
            .into_iter()
            .filter_map(|(field, own, merged)| match (own, merged) {
                (Some(own), Some(merged)) if own != merged => Some((field, own, merged)),
                _ => None,
            })
            .collect()
    }

    /// `filesystem.write`, or `None` when unknown.
    pub fn filesystem_write(&self) -> Option<bool> {
        self.filesystem.as_ref().and_then(|f| f.write)
    }

    /// `filesystem.delete`, or `None` when unknown.
    pub fn filesystem_delete(&self) -> Option<bool> {
        self.filesystem.as_ref().and_then(|f| f.delete)
    }

    /// `cost.billable`, or `None` when unknown.
    pub fn billable(&self) -> Option<bool> {
        self.cost.as_ref().and_then(|c| c.billable)
    }

    /// `cost.estimate`, or `None` when unknown.
    pub fn cost_estimate(&self) -> Option<CostEstimate> {
        self.cost.as_ref().and_then(|c| c.estimate)
    }

    /// `duration.timeout` as declared (e.g. `"60s"`), or `None`.
    pub fn timeout_hint(&self) -> Option<&str> {
        self.duration.as_ref().and_then(|d| d.timeout.as_deref())
    }

    /// The interactive requirements that stop a command from running unattended: `stdin`
    /// `required` or `password`, `prompts: true`, `tty: true`. Empty when the command is
    /// declared non-interactive or says nothing.
    pub fn interactive_requirements(&self) -> Vec<&'static str> {
        let mut needs = Vec::new();
        if let Some(i) = &self.interactive {
            match i.stdin {
                Some(StdinMode::Required) => needs.push("stdin required"),
                Some(StdinMode::Password) => needs.push("password on stdin"),
                _ => {}
            }
            if i.prompts == Some(true) {
                needs.push("prompts");
            }
            if i.tty == Some(true) {
                needs.push("tty");
            }
        }
        needs
    }
}

fn any(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), _) | (_, Some(false)) => Some(false),
        _ => None,
    }
}

fn all(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), _) | (_, Some(true)) => Some(true),
        _ => None,
    }
}

fn merge_opt<T: Clone + Default>(
    a: &Option<T>,
    b: &Option<T>,
    f: impl FnOnce(&T, &T) -> T,
) -> Option<T> {
    match (a, b) {
        (None, None) => None,
        (Some(a), None) => Some(a.clone()),
        (None, Some(b)) => Some(b.clone()),
        (Some(a), Some(b)) => Some(f(a, b)),
    }
}

fn union(a: &Option<TextList>, b: &Option<TextList>) -> Option<TextList> {
    match (a, b) {
        (None, None) => None,
        (Some(a), None) => Some(a.clone()),
        (None, Some(b)) => Some(b.clone()),
        (Some(a), Some(b)) => {
            let mut out: Vec<Text> = a.iter().cloned().collect();
            for item in b.iter() {
                if !out.contains(item) {
                    out.push(item.clone());
                }
            }
            Some(Cow::Owned(out))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fx(json: &str) -> Effects {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn risk_flags_or_and_unknown_stays_unknown() {
        let tool = fx(r#"{"network": false}"#);
        let cmd = fx(r#"{"destructive": true}"#);
        let m = tool.merged_with(&cmd);
        assert_eq!(m.destructive, Some(true));
        assert_eq!(m.network, Some(false));
        assert_eq!(m.reversible, None, "never declared, must stay unknown");
        assert_eq!(m.idempotent, None);
        assert_eq!(m.filesystem, None);
    }

    #[test]
    fn false_wins_for_reversible_and_idempotent() {
        let outer = fx(r#"{"reversible": true, "idempotent": false}"#);
        let inner = fx(r#"{"reversible": false, "idempotent": true}"#);
        let m = outer.merged_with(&inner);
        assert_eq!(m.reversible, Some(false));
        assert_eq!(m.idempotent, Some(false));
        let m = inner.merged_with(&outer);
        assert_eq!(m.reversible, Some(false));
        assert_eq!(m.idempotent, Some(false));
    }

    #[test]
    fn true_wins_for_destructive_from_either_side() {
        let yes = fx(r#"{"destructive": true}"#);
        let no = fx(r#"{"destructive": false}"#);
        assert_eq!(yes.merged_with(&no).destructive, Some(true));
        assert_eq!(no.merged_with(&yes).destructive, Some(true));
    }

    #[test]
    fn cost_takes_maximum_and_billable_ors() {
        let a = fx(r#"{"cost": {"estimate": "high"}}"#);
        let b = fx(r#"{"cost": {"estimate": "low", "billable": true}}"#);
        let m = a.merged_with(&b);
        assert_eq!(m.cost_estimate(), Some(CostEstimate::High));
        assert_eq!(m.billable(), Some(true));
    }

    #[test]
    fn nested_filesystem_and_lists_union() {
        let a = fx(r#"{"filesystem": {"read": true, "paths": ["./"]}, "creates": ["a"]}"#);
        let b = fx(
            r#"{"filesystem": {"delete": true, "paths": ["./", "/tmp"]}, "creates": ["b", "a"]}"#,
        );
        let m = a.merged_with(&b);
        let fs = m.filesystem.clone().unwrap();
        assert_eq!(fs.read, Some(true));
        assert_eq!(fs.write, None);
        assert_eq!(fs.delete, Some(true));
        assert_eq!(
            fs.paths.unwrap().as_ref(),
            &[Text::from("./"), Text::from("/tmp")]
        );
        assert_eq!(
            m.creates.unwrap().as_ref(),
            &[Text::from("a"), Text::from("b")]
        );
    }

    #[test]
    fn stdin_takes_most_demanding_and_duration_most_specific() {
        let a = fx(
            r#"{"interactive": {"stdin": "password"}, "duration": {"timeout": "10m", "typical": "1-2m"}}"#,
        );
        let b = fx(
            r#"{"interactive": {"stdin": "optional", "tty": false}, "duration": {"timeout": "30s"}}"#,
        );
        let m = a.merged_with(&b);
        let i = m.interactive.clone().unwrap();
        assert_eq!(i.stdin, Some(StdinMode::Password));
        assert_eq!(i.tty, Some(false));
        assert_eq!(m.timeout_hint(), Some("30s"));
        assert_eq!(m.duration.unwrap().typical.as_deref(), Some("1-2m"));
    }

    #[test]
    fn merge_path_skips_missing_levels() {
        let tool = fx(r#"{"network": true}"#);
        let cmd = fx(r#"{"idempotent": true}"#);
        let m = Effects::merge_path([Some(&tool), None, Some(&cmd)]);
        assert_eq!(m.network, Some(true));
        assert_eq!(m.idempotent, Some(true));
        assert_eq!(Effects::merge_path([None, None]), Effects::UNKNOWN);
    }

    #[test]
    fn serialises_spec_shape_without_unknowns() {
        let e = fx(r#"{"destructive": true, "cost": {"billable": false}}"#);
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"destructive":true,"cost":{"billable":false}}"#
        );
        assert_eq!(serde_json::to_string(&Effects::UNKNOWN).unwrap(), "{}");
    }

    #[test]
    fn const_builders_match_deserialised_effects() {
        const BUILT: Effects = Effects::UNKNOWN
            .with_destructive(true)
            .with_network(false)
            .with_creates(Cow::Borrowed(&[Cow::Borrowed("repo")]))
            .with_cost(Cost {
                estimate: Some(CostEstimate::Low),
                billable: None,
            });
        let parsed = fx(
            r#"{"destructive": true, "network": false, "creates": ["repo"], "cost": {"estimate": "low"}}"#,
        );
        assert_eq!(BUILT, parsed);
    }

    #[test]
    fn interactive_requirements_list_every_need() {
        let e = fx(r#"{"interactive": {"stdin": "required", "prompts": true, "tty": true}}"#);
        assert_eq!(
            e.interactive_requirements(),
            vec!["stdin required", "prompts", "tty"]
        );
        let quiet = fx(r#"{"interactive": {"stdin": "none", "prompts": false, "tty": false}}"#);
        assert!(quiet.interactive_requirements().is_empty());
    }
}
