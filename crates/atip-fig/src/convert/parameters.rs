//! Fig options and arguments as ATIP parameters: parsed, checked for what argv can write,
//! named against each other and the enclosing scope, and written as JSON.

use std::collections::HashSet;

use atip_core::names::param_name;
use serde_json::{json, Map, Value};

use super::fields::{
    add_suggestions, all_names, arg_label, default_of, description, is_true, list_of, usable_flag,
    value_type,
};
use super::walk::Walk;

/// A converted option, with what later levels need to know about it.
#[derive(Clone)]
pub(super) struct Opt {
    pub(super) pname: String,
    pub(super) flags: Vec<String>,
    pub(super) takes_value: bool,
    pub(super) json: Value,
}

/// Options visible from enclosing levels (global and persistent ones).
#[derive(Default, Clone)]
pub(super) struct Scope {
    pub(super) names: HashSet<String>,
    pub(super) shapes: HashSet<(Vec<String>, bool)>,
}

impl Scope {
    pub(super) fn add(&mut self, opts: &[Opt]) {
        for o in opts {
            self.names.insert(o.pname.clone());
            self.shapes.insert((sorted(&o.flags), o.takes_value));
        }
    }
}

/// A Fig option, parsed but not yet named.
pub(super) struct FigOption {
    pub(super) flags: Vec<String>,
    pub(super) persistent: bool,
    pub(super) dangerous: bool,
    /// Why its value makes the tool run a program (git's `-c`, `--upload-pack`, `--exec`, …:
    /// [`atip_lint::INJECTION_VECTORS`]), when it does.
    pub(super) runs_programs: Option<&'static str>,
    pub(super) json: Map<String, Value>,
    pub(super) takes_value: bool,
}

impl Walk {
    /// The usable options of `fig`, parsed.
    pub(super) fn options(&mut self, fig: &Map<String, Value>, at: &str) -> Vec<FigOption> {
        let mut out = Vec::new();
        for item in list_of(fig.get("options")) {
            let Some(obj) = item.as_object() else {
                self.warn(at, format!("an option is not an object ({item}): dropped"));
                continue;
            };
            if is_true(obj.get("hidden")) {
                self.stats.hidden += 1;
                continue;
            }
            let names = all_names(obj.get("name"));
            if names.iter().all(|n| n == "--" || n == "-") {
                // Fig's marker for "end of options" (or stdin): not an option.
                continue;
            }
            let label = names.join("/");
            let flags: Vec<String> = names.iter().filter(|n| usable_flag(n)).cloned().collect();
            if flags.is_empty() {
                self.warn(
                    at,
                    format!(
                        "option {label:?} has no flag that can be passed (`-x`, `--name`): dropped"
                    ),
                );
                continue;
            }
            if flags.len() < names.len() {
                let bad: Vec<&String> = names.iter().filter(|n| !usable_flag(n)).collect();
                self.warn(
                    &format!("{at} {label}"),
                    format!("flags {bad:?} cannot be passed and are left out"),
                );
            }
            let args = list_of(obj.get("args"));
            let takes_value = !args.is_empty();
            if args.len() > 1 && args[1..].iter().any(|a| !is_true(a.get("isOptional"))) {
                self.warn(
                    &format!("{at} {label}"),
                    format!(
                        "takes {} values after the flag; an ATIP option takes one: dropped",
                        args.len()
                    ),
                );
                continue;
            }
            let separator = obj
                .get("requiresSeparator")
                .or_else(|| obj.get("requiresEquals"));
            if takes_value {
                match separator {
                    Some(Value::String(s)) if s != "=" => {
                        self.warn(
                            &format!("{at} {label}"),
                            format!("needs the separator {s:?} between flag and value, which ATIP argv cannot write: dropped"),
                        );
                        continue;
                    }
                    Some(Value::Bool(true)) | Some(Value::String(_))
                        if !flags.iter().any(|f| f.starts_with("--")) =>
                    {
                        self.warn(
                            &format!("{at} {label}"),
                            "needs `-x=value`, but short flags are written `-x value`: dropped",
                        );
                        continue;
                    }
                    _ => {}
                }
            }
            let runs_programs = if takes_value {
                runs_programs(&self.tool, at, &flags)
            } else {
                None
            };
            out.push(FigOption {
                flags,
                runs_programs,
                persistent: is_true(obj.get("isPersistent")),
                dangerous: is_true(obj.get("isDangerous")),
                json: obj.clone(),
                takes_value,
            });
        }
        out
    }

    /// The positional arguments of `fig` (objects only).
    pub(super) fn arguments<'a>(
        &mut self,
        fig: &'a Map<String, Value>,
        at: &str,
    ) -> Vec<&'a Map<String, Value>> {
        let mut out = Vec::new();
        for item in list_of(fig.get("args")) {
            match item.as_object() {
                Some(o) => out.push(o),
                None => self.warn(
                    at,
                    format!("an argument is not an object ({item}): dropped"),
                ),
            }
        }
        out
    }

    /// Names and converts one level's arguments and options against `scope`. Returns the
    /// arguments, the options and the flags of dangerous options.
    pub(super) fn level(
        &mut self,
        args: Vec<&Map<String, Value>>,
        options: Vec<FigOption>,
        scope: &Scope,
        at: &str,
    ) -> (Vec<Value>, Vec<Opt>, Vec<String>) {
        let mut taken: HashSet<String> = HashSet::new();
        let mut shapes: HashSet<Vec<String>> = HashSet::new();
        let mut opts: Vec<Opt> = Vec::new();
        let mut dangerous = Vec::new();
        let mut redundant = 0usize;
        // Flags an earlier option of this level has: a spec that gives two options one flag
        // (kubectl expose's `-l` for both `--selector` and `--labels`) keeps it on the first.
        let mut flags_used: HashSet<String> = HashSet::new();
        for mut o in options {
            let shape = sorted(&o.flags);
            if scope.shapes.contains(&(shape.clone(), o.takes_value)) {
                // The same option is inherited: the command has it already.
                redundant += 1;
                if o.dangerous {
                    dangerous.push(o.flags.join("/"));
                }
                continue;
            }
            if !shapes.insert(shape) {
                self.warn(
                    &format!("{at} {}", o.flags.join("/")),
                    "option is declared twice: kept once",
                );
                continue;
            }
            let (again, fresh): (Vec<String>, Vec<String>) = o
                .flags
                .iter()
                .cloned()
                .partition(|f| flags_used.contains(f));
            if !again.is_empty() {
                let shown = o.flags.join("/");
                if fresh.is_empty() {
                    self.warn(
                        &format!("{at} {shown}"),
                        "every flag of this option is another option's: dropped",
                    );
                    continue;
                }
                self.warn(
                    &format!("{at} {shown}"),
                    format!(
                        "{} also another option's here: dropped from this one",
                        again.join(", ") + if again.len() == 1 { " is" } else { " are" }
                    ),
                );
                o.flags = fresh;
            }
            flags_used.extend(o.flags.iter().cloned());
            let mut candidates: Vec<&String> =
                o.flags.iter().filter(|f| f.starts_with("--")).collect();
            candidates.extend(o.flags.iter().filter(|f| !f.starts_with("--")));
            let mut chosen = None;
            for f in &candidates {
                let n = f.trim_start_matches('-').to_owned();
                let p = param_name(&n);
                if !taken.contains(&p) {
                    chosen = Some((n, p));
                    break;
                }
            }
            let (name, pname) = match chosen {
                Some(c) => c,
                None => {
                    let base = candidates[0].trim_start_matches('-').to_owned();
                    let (n, p) = unique(&base, |p| taken.contains(p));
                    self.warn(
                        &format!("{at} {}", o.flags.join("/")),
                        format!("its parameter name clashes with another option's: named {n:?}"),
                    );
                    (n, p)
                }
            };
            taken.insert(pname.clone());
            if o.dangerous {
                dangerous.push(o.flags.join("/"));
            }
            let json = self.option_json(&o, &name);
            opts.push(Opt {
                pname,
                flags: o.flags,
                takes_value: o.takes_value,
                json,
            });
        }
        self.inherited_repeats += redundant;
        let mut arguments = Vec::new();
        for a in args {
            let label = arg_label(a);
            let clash = |p: &str| taken.contains(p) || scope.names.contains(p);
            let name = if clash(&param_name(&label)) {
                let (n, _) = unique(&format!("{label}-arg"), clash);
                n
            } else {
                label
            };
            taken.insert(param_name(&name));
            arguments.push(self.argument_json(a, &name));
        }
        (arguments, opts, dangerous)
    }

    pub(super) fn option_json(&mut self, o: &FigOption, name: &str) -> Value {
        let fig = &o.json;
        let args = list_of(fig.get("args"));
        let first = args.first().and_then(|a| a.as_object());
        let mut out = Map::new();
        out.insert("name".into(), json!(name));
        out.insert("flags".into(), json!(o.flags));
        let ty = match first {
            None => "boolean",
            Some(a) => value_type(a),
        };
        out.insert("type".into(), json!(ty));
        let mut text = description(fig, &format!("The {} option", o.flags.join("/")));
        if let Some(a) = first {
            add_suggestions(&mut text, a);
        }
        let mut ext = Map::new();
        for (key, words) in [("exclusiveOn", "Not with"), ("dependsOn", "Requires")] {
            let list: Vec<String> = list_of(fig.get(key))
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            if !list.is_empty() {
                text.push_str(&format!(" {words} {}.", list.join(", ")));
                ext.insert(key.into(), json!(list));
            }
        }
        if o.dangerous {
            text.push_str(" [dangerous]");
        }
        if let Some(reason) = o.runs_programs {
            text.push_str(&format!(" [runs programs: {reason}]"));
        }
        out.insert("description".into(), json!(text));
        if is_true(fig.get("isRequired")) {
            out.insert("required".into(), json!(true));
        }
        if let Some(d) = first.and_then(default_of) {
            out.insert("default".into(), d);
        }
        let repeatable = matches!(fig.get("isRepeatable"), Some(Value::Bool(true)))
            || fig
                .get("isRepeatable")
                .and_then(Value::as_u64)
                .is_some_and(|n| n > 1);
        if repeatable && o.takes_value {
            out.insert("variadic".into(), json!(true));
        }
        if o.runs_programs.is_some() {
            ext.insert("effects".into(), runs_programs_effects());
        } else if o.dangerous {
            ext.insert("effects".into(), dangerous_effects());
        }
        if !ext.is_empty() {
            out.insert("x-atip-rust".into(), Value::Object(ext));
        }
        Value::Object(out)
    }

    pub(super) fn argument_json(&mut self, a: &Map<String, Value>, name: &str) -> Value {
        let mut out = Map::new();
        let runs = is_true(a.get("isCommand"));
        out.insert("name".into(), json!(name));
        out.insert("type".into(), json!(value_type(a)));
        let mut text = description(a, &format!("The {name} argument"));
        // The spec's own label, when the parameter name had to change to be read.
        let written = super::fields::written_label(a);
        if !written.is_empty() && super::fields::readable(&written) != written {
            text.push_str(&format!(" (written `{written}`)"));
        }
        if runs {
            text.push_str(" (a command line to run)");
        }
        add_suggestions(&mut text, a);
        if is_true(a.get("isDangerous")) {
            text.push_str(" [dangerous]");
        }
        out.insert("description".into(), json!(text));
        if is_true(a.get("isOptional")) {
            out.insert("required".into(), json!(false));
        }
        if let Some(d) = default_of(a) {
            out.insert("default".into(), d);
        }
        if is_true(a.get("isVariadic")) || runs {
            out.insert("variadic".into(), json!(true));
        }
        if is_true(a.get("isDangerous")) {
            out.insert(
                "x-atip-rust".into(),
                json!({ "effects": dangerous_effects() }),
            );
        }
        Value::Object(out)
    }
}

/// What Fig's `isDangerous` on an option or argument declares for a call that gives it.
fn dangerous_effects() -> Value {
    json!({ "destructive": true })
}

/// What an option whose value makes the tool run a program declares for a call that gives it:
/// anything that program may do — never read-only, so such a call is asked about first and
/// never tried first in the tightest sandbox.
fn runs_programs_effects() -> Value {
    json!({
        "destructive": true,
        "subprocess": true,
        "network": true,
        "filesystem": {"write": true}
    })
}

/// Why an option of `tool` with `flags`, declared at `at` (the Fig command line: `git`,
/// `git clone`), makes the tool run a program, if it is such an injection vector where it is
/// declared ([`atip_lint::INJECTION_VECTORS`], `runs-programs` kind; git's `-c` before the
/// subcommand, not `git commit -c`).
fn runs_programs(tool: &str, at: &str, flags: &[String]) -> Option<&'static str> {
    let command = at
        .strip_prefix(tool)
        .unwrap_or(at)
        .split_whitespace()
        .next();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    atip_lint::INJECTION_VECTORS
        .iter()
        .find(|v| {
            v.kind == atip_lint::VectorKind::RunsPrograms && v.applies_to(tool, command, &flags)
        })
        .map(|v| v.reason)
}

pub(super) fn sorted(flags: &[String]) -> Vec<String> {
    let mut v = flags.to_vec();
    v.sort();
    v
}

/// `base`, or `base-2`, `base-3`, … : the first whose parameter name is free.
fn unique(base: &str, taken: impl Fn(&str) -> bool) -> (String, String) {
    let p = param_name(base);
    if !taken(&p) {
        return (base.to_owned(), p);
    }
    (2..)
        .map(|i| format!("{base}-{i}"))
        .map(|n| {
            let p = param_name(&n);
            (n, p)
        })
        .find(|(_, p)| !taken(p))
        .unwrap_or_else(|| (base.to_owned(), p.clone()))
}
