//! The clap oracle: calls generated from the ATIP that `atip_clap::document` writes go through
//! the runtime's loaded dispatch (JSON arguments → argv), and clap's own parser must read the
//! argv back to the same values. This checks the mapping and the runtime's argv writer with a
//! parser written by neither.

use std::collections::BTreeSet;

use atip_clap::{document, Annotations};
use atip_core::Effects;
use atip_runtime::command::dispatch::{LoadedCommands, ToolCall};
use atip_runtime::{
    tool::ArgvForm, tool::ValueKind, Document, FlattenOptions, LoadOptions, ParamSpec, ToolSpec,
};
use clap::parser::ValueSource;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command, ValueEnum, ValueHint};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value};

/// An enumeration through clap's derive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Colour {
    Auto,
    Always,
    Never,
    #[value(hide = true)]
    Legacy,
}

/// A CLI with every kind of argument the mapping handles: three levels of subcommands, global
/// options at the root and deeper, short and long flags with aliases, Set / Append / Count /
/// SetTrue / SetFalse, ValueEnum and possible values, integers, numbers, paths, variadic and
/// `last(true)` positionals, value delimiters, several values per occurrence, optional values,
/// required arguments, hidden arguments and defaults.
fn oracle_cli() -> Command {
    Command::new("oracle")
        .version("1.0.0")
        .about("A program covering every kind of clap argument")
        .subcommand_required(true)
        .arg(
            Arg::new("colour")
                .long("colour")
                .global(true)
                .value_parser(value_parser!(Colour))
                .help("When to colour"),
        )
        .arg(
            Arg::new("quiet")
                .short('q')
                .long("quiet")
                .visible_alias("silent")
                .visible_short_alias('Q')
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Say less"),
        )
        .arg(
            Arg::new("config_dir")
                .long("config-dir")
                .value_parser(value_parser!(std::path::PathBuf))
                .value_hint(ValueHint::DirPath)
                .help("Where the configuration is"),
        )
        .subcommand(
            Command::new("remote")
                .about("Manage remotes")
                .subcommand_required(true)
                .arg(
                    Arg::new("repo_root")
                        .long("repo-root")
                        .global(true)
                        .value_parser(value_parser!(std::path::PathBuf))
                        .help("Repository root"),
                )
                .subcommand(
                    Command::new("add")
                        .about("Add a remote")
                        .arg(Arg::new("name").required(true).help("Remote name"))
                        .arg(Arg::new("url").required(true).help("Remote URL"))
                        .arg(
                            Arg::new("track")
                                .short('t')
                                .long("track")
                                .action(ArgAction::Append)
                                .help("Branches to track"),
                        )
                        .arg(
                            Arg::new("fetch")
                                .short('f')
                                .long("fetch")
                                .action(ArgAction::SetTrue)
                                .help("Fetch at once"),
                        )
                        .arg(
                            Arg::new("tags")
                                .long("no-tags")
                                .action(ArgAction::SetFalse)
                                .help("Do not import tags"),
                        ),
                )
                .subcommand(
                    Command::new("prune")
                        .about("Prune stale references")
                        .arg(
                            Arg::new("dry_run")
                                .short('n')
                                .long("dry-run")
                                .action(ArgAction::SetTrue)
                                .help("Only report"),
                        )
                        .subcommand(
                            Command::new("all")
                                .about("Prune every remote")
                                .arg(
                                    Arg::new("older_than")
                                        .long("older-than")
                                        .required(true)
                                        .value_parser(value_parser!(i64))
                                        .help("Age in days"),
                                )
                                .arg(
                                    Arg::new("ratio")
                                        .long("ratio")
                                        .value_parser(value_parser!(f64))
                                        .help("Ratio to keep"),
                                )
                                .arg(
                                    Arg::new("verbose")
                                        .short('v')
                                        .action(ArgAction::Count)
                                        .help("More output"),
                                )
                                .arg(
                                    Arg::new("tag")
                                        .long("tag")
                                        .action(ArgAction::Append)
                                        .value_delimiter(',')
                                        .help("Tags, comma-separated"),
                                )
                                .arg(
                                    Arg::new("mode")
                                        .long("mode")
                                        .value_parser(["fast", "slow", "-odd"])
                                        .default_value("fast")
                                        .help("How"),
                                )
                                .arg(
                                    Arg::new("jobs")
                                        .short('j')
                                        .allow_hyphen_values(true)
                                        .value_parser(value_parser!(i64))
                                        .help("Jobs"),
                                )
                                .arg(Arg::new("secret").long("secret").hide(true).help("Hidden"))
                                .arg(
                                    Arg::new("files")
                                        .num_args(1..)
                                        .value_parser(value_parser!(std::path::PathBuf))
                                        .help("Files to prune"),
                                ),
                        ),
                ),
        )
        .subcommand(
            Command::new("run")
                .about("Run a program")
                .arg(
                    Arg::new("env")
                        .short('e')
                        .long("env")
                        .num_args(1..)
                        .action(ArgAction::Append)
                        .help("Environment entries"),
                )
                .arg(
                    Arg::new("pick")
                        .long("pick")
                        .num_args(1..=3)
                        .help("Up to three picks"),
                )
                .arg(
                    Arg::new("colour_opt")
                        .long("paint")
                        .num_args(0..=1)
                        .default_missing_value("auto")
                        .help("Paint, optionally how"),
                )
                .arg(
                    Arg::new("count_to")
                        .long("count-to")
                        .value_parser(value_parser!(i64))
                        .default_value("10")
                        .help("Count"),
                )
                .arg(Arg::new("program").required(true).help("Program"))
                .arg(Arg::new("args").num_args(0..).help("Its arguments")),
        )
        .subcommand(
            Command::new("echo")
                .about("Echo words")
                .arg(Arg::new("first").help("First word"))
                .arg(Arg::new("second").help("Second word"))
                .arg(
                    Arg::new("x")
                        .short('x')
                        .allow_hyphen_values(true)
                        .help("A short-only option"),
                ),
        )
        .subcommand(
            Command::new("exec")
                .about("Pass arguments on")
                .arg(Arg::new("shell").long("shell").help("Shell to use"))
                .arg(Arg::new("rest").last(true).num_args(0..).help("Passed on")),
        )
        .subcommand(Command::new("hidden").hide(true).about("Hidden command"))
}

fn loaded() -> LoadedCommands {
    let annotations = Annotations::new()
        .effects("remote", Effects::UNKNOWN.with_network(true))
        .effects("echo", Effects::UNKNOWN.with_destructive(false));
    let described = document(&oracle_cli(), &annotations).expect("describable");
    let doc = Document::parse(
        &described.to_json(),
        &LoadOptions::strict(),
        &FlattenOptions::default(),
    )
    .unwrap_or_else(|e| panic!("the document must load strictly: {e}"));
    LoadedCommands::new(doc, None)
}

/// A value strategy for one parameter value of `kind`.
fn scalar(p: &ParamSpec) -> BoxedStrategy<Value> {
    match p.kind {
        ValueKind::Integer => any::<i64>().prop_map(Value::from).boxed(),
        ValueKind::Number => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from)
            .boxed(),
        ValueKind::Enum => {
            let values: Vec<String> = p
                .values
                .as_deref()
                .unwrap_or_default()
                .iter()
                .map(|v| v.to_string())
                .collect();
            proptest::sample::select(values)
                .prop_map(Value::String)
                .boxed()
        }
        ValueKind::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
        // A path is never empty (clap's PathBuf parser refuses "", as no OS has such a file).
        ValueKind::File | ValueKind::Directory => prop_oneof![
            "[a-zA-Z0-9_./=-]{1,12}",
            "-{1,2}[a-zA-Z0-9=,-]{0,6}",
            "\\PC{1,8}",
            Just("--".to_owned()),
            Just("-".to_owned()),
        ]
        .prop_map(Value::String)
        .boxed(),
        _ => prop_oneof![
            "[a-zA-Z0-9_./=-]{0,12}",
            "-{1,2}[a-zA-Z0-9=,-]{0,6}",
            "[a-z]{1,4},[a-z,]{0,6}",
            "\\PC{0,8}",
            Just("--".to_owned()),
            Just("-".to_owned()),
            Just("help".to_owned()),
        ]
        .prop_map(Value::String)
        .boxed(),
    }
}

/// Present or absent, and its value (a list for a parameter taking several).
fn param_value(p: &ParamSpec) -> BoxedStrategy<Option<Value>> {
    let value = if p.kind == ValueKind::Boolean {
        scalar(p)
    } else if p.multiple {
        let min = usize::from(p.required);
        proptest::collection::vec(scalar(p), min..4)
            .prop_map(Value::Array)
            .boxed()
    } else {
        scalar(p)
    };
    if p.required {
        value.prop_map(Some).boxed()
    } else {
        proptest::option::of(value).boxed()
    }
}

/// A command and its arguments: positionals after an absent one are left out, which is what
/// the ATIP argument order requires of a valid call.
fn call(specs: &[ToolSpec]) -> BoxedStrategy<(usize, Map<String, Value>)> {
    let specs = specs.to_vec();
    (0..specs.len())
        .prop_flat_map(move |i| {
            let spec = specs[i].clone();
            let values: Vec<_> = spec.params.iter().map(param_value).collect();
            (Just(i), Just(spec), values)
        })
        .prop_map(|(i, spec, values)| {
            let mut args = Map::new();
            let mut gap = false;
            for (p, v) in spec.params.iter().zip(values) {
                let absent = match &v {
                    None => true,
                    Some(Value::Array(items)) => items.is_empty(),
                    _ => false,
                };
                if p.argv.is_argument() {
                    if gap {
                        continue;
                    }
                    gap |= absent;
                }
                if let Some(v) = v {
                    args.insert(p.name.to_string(), v);
                }
            }
            (i, args)
        })
        .boxed()
}

/// The clap argument of `p` in the command chain `chain` (outermost first).
fn clap_arg<'a>(chain: &[&'a Command], p: &ParamSpec) -> Option<&'a Arg> {
    let matches = |a: &&Arg| match &p.argv {
        ArgvForm::Argument(name) => a.is_positional() && a.get_id() == name.as_ref(),
        ArgvForm::Flag(f) | ArgvForm::Joined(f) | ArgvForm::Separate(f) => {
            if let Some(long) = f.strip_prefix("--") {
                a.get_long() == Some(long)
            } else {
                let short = f.strip_prefix('-').and_then(|s| s.chars().next());
                short.is_some() && a.get_short() == short
            }
        }
    };
    chain
        .iter()
        .rev()
        .find_map(|c| c.get_arguments().find(matches))
}

/// The matches at each level of the subcommand path, outermost first.
fn matches_chain<'a>(root: &'a ArgMatches, path: &[String]) -> Vec<&'a ArgMatches> {
    let mut chain = vec![root];
    let mut at = root;
    for seg in path {
        match at.subcommand_matches(seg) {
            Some(m) => {
                chain.push(m);
                at = m;
            }
            None => break,
        }
    }
    chain
}

/// The raw values clap recorded for `id` from the command line, looking from the innermost
/// level out (clap copies global values down).
fn raw_values(chain: &[&ArgMatches], id: &str) -> Option<Vec<String>> {
    for m in chain.iter().rev() {
        if let Ok(Some(values)) = m.try_get_raw(id) {
            if m.value_source(id) == Some(ValueSource::CommandLine) {
                return Some(values.map(|v| v.to_string_lossy().into_owned()).collect());
            }
        }
    }
    None
}

/// Checks one call; the error says how clap's reading differs from the call.
fn check(
    tool: &LoadedCommands,
    cli: &Command,
    spec: &ToolSpec,
    args: &Map<String, Value>,
) -> Result<(), String> {
    let call = ToolCall::new(None, spec.name.to_string(), args.clone());
    let inv = tool
        .invocation(&call)
        .map_err(|e| format!("dispatch refused a valid call: {e}"))?;
    let argv: Vec<String> = inv
        .argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let m = cli
        .clone()
        .try_get_matches_from(&inv.argv)
        .map_err(|e| format!("clap refused {argv:?}: {e}"))?;
    let path: Vec<String> = spec.path.iter().map(|s| s.to_string()).collect();
    let chain_m = matches_chain(&m, &path);
    if chain_m.len() != path.len() + 1 {
        return Err(format!("clap did not reach {path:?} from {argv:?}"));
    }
    let mut chain_c = vec![cli];
    for seg in &path {
        let next = chain_c[chain_c.len() - 1]
            .find_subcommand(seg)
            .ok_or_else(|| format!("no clap command {seg}"))?;
        chain_c.push(next);
    }
    let mut seen = BTreeSet::new();
    for p in spec.params.iter() {
        let arg =
            clap_arg(&chain_c, p).ok_or_else(|| format!("no clap argument for {}", p.name))?;
        let id = arg.get_id().as_str();
        seen.insert(id.to_owned());
        let given = args.get(p.name.as_ref());
        let got = raw_values(&chain_m, id);
        if p.kind == ValueKind::Boolean {
            let on = given == Some(&Value::Bool(true));
            let leaf = chain_m[chain_m.len() - 1];
            let ok = match arg.get_action() {
                ArgAction::SetTrue => got.is_some() == on && (!on || leaf.get_flag(id)),
                ArgAction::SetFalse => got.is_some() == on && (!on || !leaf.get_flag(id)),
                ArgAction::Count => got.is_some() == on && (!on || leaf.get_count(id) == 1),
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "{}: given {on}, clap read {got:?} from {argv:?}",
                    p.name
                ));
            }
            continue;
        }
        let items: Vec<&Value> = match given {
            None => Vec::new(),
            Some(Value::Array(items)) => items.iter().collect(),
            Some(v) => vec![v],
        };
        let mut expected: Vec<String> = items
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        if let Some(d) = arg.get_value_delimiter() {
            expected = expected
                .iter()
                .flat_map(|v| v.split(d).map(str::to_owned).collect::<Vec<_>>())
                .collect();
        }
        let got = got.unwrap_or_default();
        let same = if p.kind == ValueKind::Number {
            got.len() == items.len()
                && got
                    .iter()
                    .zip(&items)
                    .all(|(g, v)| g.parse::<f64>().ok() == v.as_f64())
        } else {
            got == expected
        };
        if !same {
            return Err(format!(
                "{}: given {expected:?}, clap read {got:?} from {argv:?}",
                p.name
            ));
        }
        // A repeated option (`Append`) is described as one value per occurrence: clap must
        // read each given value as an occurrence of its own, also where one occurrence could
        // take several (`num_args(1..)`: `--env=a --env=b` is two entries, never one of two
        // values).
        if matches!(arg.get_action(), ArgAction::Append)
            && !arg.is_positional()
            && arg.get_value_delimiter().is_none()
        {
            let occurrences: Vec<Vec<String>> = chain_m
                .iter()
                .rev()
                .find_map(|m| match m.try_get_raw_occurrences(id) {
                    Ok(Some(o)) if m.value_source(id) == Some(ValueSource::CommandLine) => Some(
                        o.map(|values| values.map(|v| v.to_string_lossy().into_owned()).collect())
                            .collect(),
                    ),
                    _ => None,
                })
                .unwrap_or_default();
            let one_each: Vec<Vec<String>> = expected.iter().map(|v| vec![v.clone()]).collect();
            if occurrences != one_each {
                return Err(format!(
                    "{}: given {expected:?} one per occurrence, clap read the occurrences \
                     {occurrences:?} from {argv:?}",
                    p.name
                ));
            }
        }
    }
    // Nothing else came from the command line.
    for (level, c) in chain_m.iter().zip(&chain_c) {
        for arg in c.get_arguments() {
            let id = arg.get_id().as_str();
            if !seen.contains(id) && level.value_source(id) == Some(ValueSource::CommandLine) {
                return Err(format!(
                    "clap read `{id}`, which the call did not give, from {argv:?}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn clap_reads_back_every_generated_call() {
    let tool = loaded();
    let specs = tool.specs().to_vec();
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "oracle_remote_add",
            "oracle_remote_prune",
            "oracle_remote_prune_all",
            "oracle_run",
            "oracle_echo",
            "oracle_exec"
        ]
    );
    let mut cli = oracle_cli();
    cli.build();
    let cases = 10_000;
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let checked = std::cell::Cell::new(0u32);
    let result = runner.run(&call(&specs), |(i, args)| {
        checked.set(checked.get() + 1);
        check(&tool, &cli, &specs[i], &args).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("clap disagrees with the runtime's argv: {e}");
    }
    assert!(checked.get() >= cases, "ran {} cases", checked.get());
    eprintln!("clap oracle: {} cases, 0 mismatches", checked.get());
}

#[test]
fn what_the_argv_writer_cannot_express_is_warned_and_left_out() {
    let described = document(&oracle_cli(), &Annotations::new()).unwrap();
    let warned = |command: &str, arg: &str, needle: &str| {
        assert!(
            described.warnings.iter().any(|w| w.command == command
                && w.arg.as_deref() == Some(arg)
                && w.message.contains(needle)),
            "no warning for {command} {arg} containing {needle:?}: {:#?}",
            described.warnings
        );
    };
    warned("exec", "rest", "last(true)");
    warned("remote prune all", "verbose", "ArgAction::Count");
    warned("remote prune all", "tag", "splits each value at `,`");
    warned("run", "pick", "described as taking one value");
    warned("run", "env", "one value per occurrence");
    warned("run", "colour_opt", "its value is optional");
    assert!(described.tool.commands["exec"].arguments.is_empty());
    let all = &described.tool.commands["remote"].commands["prune"].commands["all"];
    assert!(all.options.iter().all(|o| o.name != "secret"), "hidden");
    assert!(!described.tool.commands.contains_key("hidden"));
    // `prune` runs on its own too: its `""` child has the non-global `--dry-run`.
    let prune = &described.tool.commands["remote"].commands["prune"];
    assert_eq!(prune.commands[""].options[0].flags, ["-n", "--dry-run"]);
    assert!(described
        .warnings
        .iter()
        .any(|w| w.command == "remote prune" && w.message.contains("not global")));
}
