//! Following `loadSpec` references: a subcommand that names another module of the package
//! takes that module's spec in its place, within limits of count, depth and size, and never
//! around a cycle.

use serde_json::{Map, Value};

use crate::convert::{Stats, Warning};
use crate::engine;
use crate::importer::{Importer, ModuleCache};

/// Most `loadSpec` references followed for one spec: 5,000.
pub const MAX_LOAD_SPECS: usize = 5_000;

/// Deepest chain of `loadSpec` references followed (a spec loading a spec loading …): 8.
pub const MAX_LOAD_SPEC_DEPTH: usize = 8;

/// Most subcommands that followed `loadSpec`s may add to one spec, as a multiple of
/// [`ImportOptions::max_commands`](crate::ImportOptions::max_commands): 4 (beyond it the references are not followed).
pub const LOADED_COMMANDS_FACTOR: usize = 4;

impl Importer {
    /// Follows the `loadSpec` references of `spec`, read from `module`: each names a module
    /// of the package, whose spec takes the subcommand's place.
    pub(crate) fn follow_load_specs(
        &self,
        spec: Value,
        module: &str,
        cache: &mut ModuleCache,
        warnings: &mut Vec<Warning>,
        stats: &mut Stats,
    ) -> Value {
        let mut chain = vec![module.to_owned()];
        let mut followed = Budget::default();
        self.resolve(spec, &mut chain, cache, warnings, stats, &mut followed)
    }

    fn resolve(
        &self,
        mut spec: Value,
        chain: &mut Vec<String>,
        cache: &mut ModuleCache,
        warnings: &mut Vec<Warning>,
        stats: &mut Stats,
        followed: &mut Budget,
    ) -> Value {
        let Some(subs) = spec.get_mut("subcommands").and_then(Value::as_array_mut) else {
            return spec;
        };
        for sub in subs.iter_mut() {
            let Some(obj) = sub.as_object_mut() else {
                continue;
            };
            if obj.get("hidden") == Some(&Value::Bool(true)) {
                continue;
            }
            let target = match obj.get("loadSpec") {
                Some(Value::String(t)) if t != engine::FUNCTION_MARKER => Some(t.clone()),
                _ => None,
            };
            let here = obj
                .get("name")
                .map(|n| {
                    n.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| n.to_string())
                })
                .unwrap_or_default();
            let taken = std::mem::take(sub);
            *sub = match target {
                None => self.resolve(taken, chain, cache, warnings, stats, followed),
                Some(target) => {
                    let at = format!("{} → {target}", chain.last().cloned().unwrap_or_default());
                    let mut warn = |message: String| {
                        stats.load_specs_ignored += 1;
                        warnings.push(Warning {
                            at: at.clone(),
                            message,
                        });
                    };
                    let max_loaded = self
                        .options
                        .max_commands
                        .saturating_mul(LOADED_COMMANDS_FACTOR);
                    if followed.specs >= MAX_LOAD_SPECS
                        || chain.len() > MAX_LOAD_SPEC_DEPTH
                        || followed.commands > max_loaded
                    {
                        warn(format!(
                            "loadSpec of `{here}` not followed: the import's limits ({MAX_LOAD_SPECS} references, {MAX_LOAD_SPEC_DEPTH} deep, {max_loaded} loaded commands) are reached"
                        ));
                        without_load_spec(taken)
                    } else {
                        match self.load(&target, cache) {
                            Ok((module, Some(loaded))) if !chain.contains(&module) => {
                                followed.specs += 1;
                                followed.commands += count_commands(&loaded, 0);
                                stats.load_specs_followed += 1;
                                chain.push(module);
                                let loaded =
                                    self.resolve(loaded, chain, cache, warnings, stats, followed);
                                chain.pop();
                                merge_loaded(taken, loaded)
                            }
                            Ok((module, Some(_))) => {
                                warn(format!(
                                    "loadSpec of `{here}` refers back to {module}, which is being loaded: not followed"
                                ));
                                without_load_spec(taken)
                            }
                            Ok((module, None)) => {
                                warn(format!("loadSpec of `{here}`: {module} is versioned twice: not followed"));
                                without_load_spec(taken)
                            }
                            Err(e) => {
                                warn(format!("loadSpec of `{here}` not followed: {e}"));
                                without_load_spec(taken)
                            }
                        }
                    }
                }
            };
        }
        spec
    }
}

/// What the `loadSpec`s of one import have added so far.
#[derive(Default)]
struct Budget {
    specs: usize,
    commands: usize,
}

/// Subcommand objects in a spec (at most 64 levels down: the depth serde_json parsed).
fn count_commands(spec: &Value, depth: usize) -> usize {
    match spec.get("subcommands") {
        Some(Value::Array(subs)) if depth < 64 => {
            subs.iter().map(|s| 1 + count_commands(s, depth + 1)).sum()
        }
        _ => 0,
    }
}

fn without_load_spec(mut sub: Value) -> Value {
    if let Some(o) = sub.as_object_mut() {
        o.remove("loadSpec");
    }
    sub
}

/// The loaded spec in the subcommand's place: its content, with the subcommand's names, its
/// description when it has one, its own options first, and `isDangerous` when either has it.
fn merge_loaded(sub: Value, loaded: Value) -> Value {
    let Value::Object(mut sub) = sub else {
        return loaded;
    };
    let Value::Object(mut out) = loaded else {
        return Value::Object(sub);
    };
    sub.remove("loadSpec");
    if let Some(name) = sub.remove("name") {
        out.insert("name".into(), name);
    }
    if let Some(d) = sub.remove("description") {
        out.insert("description".into(), d);
    }
    let mut options: Vec<Value> = match sub.remove("options") {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    if let Some(Value::Array(more)) = out.remove("options") {
        options.extend(more);
    }
    if !options.is_empty() {
        out.insert("options".into(), Value::Array(options));
    }
    for key in ["isDangerous", "requiresSubcommand"] {
        if sub.get(key) == Some(&Value::Bool(true)) {
            out.insert(key.into(), Value::Bool(true));
        }
    }
    for (k, v) in sub {
        out.entry(k).or_insert(v);
    }
    let _: &Map<String, Value> = &out;
    Value::Object(out)
}
