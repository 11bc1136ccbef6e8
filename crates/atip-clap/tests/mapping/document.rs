//! `atip_clap::document` and the `--agent` helpers, on small clap programs.

use atip_clap::{agent_flag, agent_request, answer_agent, document, Annotations, AGENT_ARG_ID};
use atip_core::model::{EnumValue, ParamType};
use atip_core::{Effects, LoadOptions, TrustSource};
use clap::{value_parser, Arg, ArgAction, Command, CommandFactory, Parser, Subcommand, ValueEnum};
use serde_json::json;

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Text,
}

/// Derive-built program.
#[derive(Parser)]
#[command(name = "shop", version = "3.1.0", about = "Manage a shop")]
struct Shop {
    /// Shop data directory.
    #[arg(long, global = true)]
    data: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: ShopCmd,
}

#[derive(Subcommand)]
enum ShopCmd {
    /// List items.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// At most this many.
        #[arg(
            short = 'n',
            long = "limit",
            visible_alias = "max",
            default_value_t = 20
        )]
        limit: i64,
        /// Minimum price.
        #[arg(long)]
        min_price: Option<f64>,
        /// Tags to match.
        #[arg(long = "tag")]
        tags: Vec<String>,
    },
    /// Remove items.
    Remove {
        /// Item ids.
        #[arg(required = true)]
        ids: Vec<String>,
        /// Do not ask.
        #[arg(short, long)]
        yes: bool,
    },
}

fn loads_strictly(json: &str) {
    if let Err(e) = atip_core::load(json, &LoadOptions::strict()) {
        panic!("does not load strictly: {e}\n{json}");
    }
}

#[test]
fn a_derive_program_maps_to_strict_atip() {
    let annotations = Annotations::new()
        .effects("list", Effects::UNKNOWN.with_destructive(false))
        .effects(
            "remove",
            Effects::UNKNOWN
                .with_destructive(true)
                .with_reversible(false),
        );
    let described = document(&Shop::command(), &annotations).unwrap();
    loads_strictly(&described.to_json());
    let tool = &described.tool;
    assert_eq!(tool.name, "shop");
    assert_eq!(tool.version, "3.1.0");
    assert_eq!(
        tool.trust.as_ref().unwrap().source,
        Some(TrustSource::Native)
    );
    // The root's (global) option is a global option; help and version are not described.
    let globals: Vec<&str> = tool
        .global_options
        .iter()
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(globals, ["data"]);
    assert_eq!(tool.global_options[0].ty, ParamType::File);
    let list = &tool.commands["list"];
    assert_eq!(list.description, "List items"); // clap drops the period of a one-line doc comment
    let format = &list.options[0];
    assert_eq!(format.ty, ParamType::Enum);
    assert_eq!(
        format.enum_values,
        Some(vec![
            EnumValue::String("json".into()),
            EnumValue::String("text".into())
        ])
    );
    assert_eq!(format.default, Some(json!("text")));
    let limit = &list.options[1];
    assert_eq!(limit.flags, ["-n", "--limit", "--max"]);
    assert_eq!(limit.ty, ParamType::Integer);
    assert_eq!(limit.default, Some(json!(20)));
    assert_eq!(list.options[2].ty, ParamType::Number);
    assert_eq!(list.options[2].flags, ["--min-price"]);
    assert_eq!(list.options[3].variadic, Some(true));
    assert_eq!(list.effects, Some(Effects::UNKNOWN.with_destructive(false)));
    let remove = &tool.commands["remove"];
    assert_eq!(remove.arguments[0].name, "ids");
    assert_eq!(remove.arguments[0].required, Some(true));
    assert_eq!(remove.arguments[0].variadic, Some(true));
    assert_eq!(remove.options[0].ty, ParamType::Boolean);
    assert!(described.warnings.is_empty(), "{:#?}", described.warnings);
}

#[test]
fn unannotated_commands_leave_effects_undeclared() {
    let described = document(&Shop::command(), &Annotations::new()).unwrap();
    assert!(described.tool.effects.is_none());
    assert!(described
        .tool
        .commands
        .values()
        .all(|c| c.effects.is_none()));
}

#[test]
fn annotations_for_unknown_commands_and_a_missing_version_are_errors() {
    let err = document(
        &Shop::command(),
        &Annotations::new().effects("lits", Effects::UNKNOWN),
    )
    .unwrap_err();
    assert!(err.problems[0].contains("`lits`"), "{err}");
    let bare = Command::new("bare").about("No version");
    let err = document(&bare, &Annotations::new()).unwrap_err();
    assert!(err.to_string().contains("no version"), "{err}");
    let ok = document(&bare, &Annotations::new().version("0.1.0")).unwrap();
    assert_eq!(ok.tool.version, "0.1.0");
    // A program without subcommands is one command, `""`.
    assert!(ok.tool.commands.contains_key(""));
    loads_strictly(&ok.to_json());
}

#[test]
fn trust_and_tool_effects_come_from_the_annotations() {
    let annotations = Annotations::new()
        .trust(TrustSource::Vendor)
        .homepage("https://example.com/shop")
        .effects("", Effects::UNKNOWN.with_network(false));
    let described = document(&Shop::command(), &annotations).unwrap();
    let tool = &described.tool;
    assert_eq!(
        tool.trust.as_ref().unwrap().source,
        Some(TrustSource::Vendor)
    );
    assert_eq!(tool.effects, Some(Effects::UNKNOWN.with_network(false)));
    assert_eq!(tool.homepage.as_deref(), Some("https://example.com/shop"));
}

#[test]
fn arguments_the_argv_writer_cannot_write_are_left_out_with_a_warning() {
    let cmd = Command::new("t")
        .version("1")
        .subcommand_required(true)
        .subcommand(
            Command::new("pair")
                .about("Needs two values per flag")
                .arg(Arg::new("kv").long("kv").num_args(2))
                .arg(
                    Arg::new("level")
                        .long("level")
                        .value_parser(value_parser!(u8)),
                )
                .arg(Arg::new("o").short('o')),
        )
        .subcommand(
            Command::new("must")
                .about("Requires a pair")
                .arg(Arg::new("kv").long("kv").num_args(2).required(true)),
        );
    let described = document(&cmd, &Annotations::new()).unwrap();
    let pair = &described.tool.commands["pair"];
    let names: Vec<&str> = pair.options.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["level", "o"]);
    assert!(!described.tool.commands.contains_key("must"));
    let messages: Vec<String> = described.warnings.iter().map(|w| w.to_string()).collect();
    let has = |needle: &str| messages.iter().any(|m| m.contains(needle));
    assert!(
        has("`pair`, argument `kv`: needs 2 or more values"),
        "{messages:#?}"
    );
    assert!(has(
        "`pair`, argument `level`: an integer of a narrower range"
    ));
    assert!(has("`pair`, argument `o`: short-only"));
    assert!(has("`must`: left out"));
    loads_strictly(&described.to_json());
}

#[test]
fn a_long_about_is_cut_to_the_spec_limit() {
    let long = "word ".repeat(80);
    let cmd = Command::new("t").version("1").about(long);
    let described = document(&cmd, &Annotations::new()).unwrap();
    assert!(described.tool.description.chars().count() <= 200);
    assert!(described.warnings.iter().any(|w| w.message.contains("200")));
    loads_strictly(&described.to_json());
}

#[test]
fn agent_requests_are_recognised_only_as_the_first_argument() {
    assert_eq!(agent_request(["shop", "--agent"]).unwrap().commands, None);
    assert!(agent_request(["shop", "list", "--agent"]).is_none());
    assert!(agent_request(["shop"]).is_none());
    let r = agent_request(["shop", "--agent", "--commands=list,remove"]).unwrap();
    assert_eq!(
        r.commands,
        Some(vec!["list".to_owned(), "remove".to_owned()])
    );
    let r = agent_request(["shop", "--agent", "--depth=1"]).unwrap();
    assert_eq!(r.unsupported, ["--depth=1"]);
    assert!(answer_agent(&Shop::command(), &Annotations::new(), &r)
        .unwrap_err()
        .contains("--depth=1"));
}

#[test]
fn partial_discovery_keeps_the_asked_subtrees() {
    let r = agent_request(["shop", "--agent", "--commands", "remove"]).unwrap();
    let text = answer_agent(&Shop::command(), &Annotations::new(), &r)
        .unwrap()
        .text;
    loads_strictly(&text);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["partial"], json!(true));
    assert_eq!(v["totalCommands"], json!(2));
    assert_eq!(v["includedCommands"], json!(1));
    assert_eq!(v["omitted"]["safetyAssumption"], json!("unknown"));
    assert!(v["commands"].get("list").is_none());
    assert!(v["commands"].get("remove").is_some());
    let r = agent_request(["shop", "--agent", "--commands=nope"]).unwrap();
    assert!(answer_agent(&Shop::command(), &Annotations::new(), &r)
        .unwrap_err()
        .contains("`nope`"));
}

#[test]
fn the_agent_flag_is_listed_but_not_described() {
    let cmd = agent_flag(
        Command::new("t")
            .version("1")
            .about("T")
            .arg(Arg::new("v").long("verbose").action(ArgAction::SetTrue)),
    );
    assert!(cmd.get_arguments().any(|a| a.get_id() == AGENT_ARG_ID));
    let described = document(&cmd, &Annotations::new()).unwrap();
    let names: Vec<&str> = described.tool.commands[""]
        .options
        .iter()
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(names, ["verbose"]);
}
