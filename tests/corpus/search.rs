//! Finding commands among thousands: recall of the BM25 index on queries over a large generated
//! document and, with hand-labelled natural-language queries, over the real `gh` metadata of the
//! shared corpus; `select_for` under provider limits; the meta-tools in a real turn.

use crate::support;

use atip_runtime::agent::{CallStatus, TurnDriver};
use atip_runtime::search::{MetaTools, ToolIndex, SELECT_DEFAULT};
use atip_runtime::{
    Dispatch, Document, FlattenOptions, LoadOptions, LoadedCommands, Provider, Runner,
};
use atip_tests::large::{self, Shape};
use serde_json::json;

/// Recall@k: the share of queries whose expected command is among the first `k` results.
fn recall(index: &ToolIndex, titles: &[String], labelled: &[(String, String)], k: usize) -> f64 {
    let found = labelled
        .iter()
        .filter(|(query, want)| {
            index
                .search(query, k)
                .iter()
                .any(|h| &titles[h.index] == want)
        })
        .count();
    found as f64 / labelled.len() as f64
}

#[test]
fn queries_over_a_generated_2000_command_document_find_their_command() {
    let shape = Shape::commands(2_000);
    let doc = Document::parse(
        &large::document(&shape),
        &LoadOptions::strict(),
        &FlattenOptions::default(),
    )
    .unwrap();
    let tool = LoadedCommands::new(doc, None);
    let titles: Vec<String> = tool.specs().iter().map(|s| s.title.to_string()).collect();
    let index = ToolIndex::new(tool.specs());
    // "describe load balancer in ec2": the words a person would use, no punctuation.
    let labelled: Vec<(String, String)> = (0..shape.services)
        .step_by(3)
        .flat_map(|i| [(i, 0), (i, 7), (i, shape.operations - 1)])
        .map(|(i, j)| {
            let service = large::service_name(i);
            let operation = large::operation_name(i, j);
            (
                format!(
                    "{} in {}",
                    operation.replace('-', " "),
                    service.replace('-', " ")
                ),
                format!("awsx {service} {operation}"),
            )
        })
        .collect();
    let at1 = recall(&index, &titles, &labelled, 1);
    let at5 = recall(&index, &titles, &labelled, 5);
    println!(
        "generated 2,000 commands, {} queries: recall@1 {at1:.2}, recall@5 {at5:.2}",
        labelled.len()
    );
    assert!(at5 >= 0.95, "recall@5 {at5}");
    assert!(at1 >= 0.8, "recall@1 {at1}");
    // select_for stays under every provider's limit and the default.
    for p in Provider::ALL {
        let picked = index.select_for("describe instances", p);
        assert!(
            !picked.is_empty()
                && picked.len() <= SELECT_DEFAULT.min(p.max_tools().unwrap_or(usize::MAX))
        );
    }
}

/// The shared corpus of real metadata (`../shared/corpus/atip`); fails, never skips, when it
/// is missing.
fn corpus() -> std::path::PathBuf {
    let dir = support::workspace().join("../shared/corpus/atip");
    assert!(
        dir.join("scale/aws-mid.json").is_file() && dir.join("valid/examples__gh.json").is_file(),
        "the shared corpus is missing at {}: this test needs ../shared next to the workspace",
        dir.display()
    );
    dir
}

/// A labelled query set of ours, `tests/search/<name>`: one `query<TAB>flattened name` a line,
/// `#` comments and blank lines skipped.
fn queries(name: &str) -> Vec<(String, String)> {
    let path = support::workspace().join("tests/search").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (q, want) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("{name}: no tab in {l:?}"));
            (q.trim().to_owned(), want.trim().to_owned())
        })
        .collect()
}

/// Recall@1, @5 and @10 of `labelled` (query, flattened name) over `tool`, with every miss
/// printed; each label must name a command.
fn measure(set: &str, tool: &LoadedCommands, labelled: &[(String, String)]) -> [f64; 3] {
    let names: Vec<String> = tool.specs().iter().map(|s| s.name.to_string()).collect();
    let index = ToolIndex::for_tool(tool);
    let mut found = [0usize; 3];
    for (q, want) in labelled {
        assert!(names.contains(want), "{set}: {want} is not a command");
        let got: Vec<&str> = index
            .search(q, 10)
            .iter()
            .map(|h| names[h.index].as_str())
            .collect();
        let rank = got.iter().position(|n| n == want);
        for (slot, k) in found.iter_mut().zip([1, 5, 10]) {
            *slot += usize::from(rank.is_some_and(|r| r < k));
        }
        if rank != Some(0) {
            println!(
                "{set}: {q:?} wants {want} at {rank:?}; got {:?}",
                &got[..got.len().min(3)]
            );
        }
    }
    let n = labelled.len() as f64;
    let r = found.map(|f| f as f64 / n);
    println!(
        "{set}: {} queries, recall@1 {:.3} ({}), @5 {:.3} ({}), @10 {:.3} ({})",
        labelled.len(),
        r[0],
        found[0],
        r[1],
        found[1],
        r[2],
        found[2]
    );
    r
}

/// Our own labelled natural-language queries (`tests/search/queries-*.tsv`, phrased as a person
/// asks, not as the descriptions say) over the real aws metadata (819 commands of ten services,
/// loaded leniently like `atip search` does) and the real gh metadata (167 commands).
#[test]
#[ignore = "needs ../shared"]
fn recall_of_labelled_queries_over_real_aws_and_gh_metadata() {
    let dir = corpus();
    let mut failed = Vec::new();
    for (set, file, tsv) in [
        ("aws-mid", "scale/aws-mid.json", "queries-aws.tsv"),
        ("gh", "valid/examples__gh.json", "queries-gh.tsv"),
    ] {
        let doc = Document::from_path(
            &dir.join(file),
            atip_runtime::Mode::Lenient,
            &FlattenOptions::default(),
        )
        .unwrap();
        let tool = LoadedCommands::new(doc, None);
        let labelled = queries(tsv);
        assert!(labelled.len() >= 75, "{tsv}: {} queries", labelled.len());
        let [at1, _, at10] = measure(set, &tool, &labelled);
        if at10 < 0.9 || at1 < 0.5 {
            failed.push(format!("{set}: recall@1 {at1:.3}, recall@10 {at10:.3}"));
        }
    }
    assert!(
        failed.is_empty(),
        "below recall@10 0.9 / recall@1 0.5: {failed:?}"
    );
}

/// Natural-language queries over the 167 commands of the real `gh` metadata, each labelled
/// with the command a person would pick.
#[test]
#[ignore = "needs ../shared"]
fn labelled_queries_over_the_gh_corpus() {
    let path = support::validators::shared().join("corpus/atip/valid/examples__gh.json");
    let doc = Document::from_path(
        &path,
        atip_runtime::Mode::Strict,
        &FlattenOptions::default(),
    )
    .unwrap();
    let tool = LoadedCommands::new(doc, None);
    let titles: Vec<String> = tool.specs().iter().map(|s| s.title.to_string()).collect();
    let index = ToolIndex::new(tool.specs());
    let labelled: Vec<(String, String)> = [
        ("merge a pull request", "gh pr merge"),
        ("open a new pull request for my branch", "gh pr create"),
        ("check out a pull request locally", "gh pr checkout"),
        ("see the CI checks of a pull request", "gh pr checks"),
        ("approve a pull request", "gh pr review"),
        ("file a bug report issue", "gh issue create"),
        ("close an issue", "gh issue close"),
        ("show issues assigned to me", "gh issue list"),
        ("delete a repository", "gh repo delete"),
        ("fork a repository", "gh repo fork"),
        ("clone a repository", "gh repo clone"),
        ("archive a repository", "gh repo archive"),
        ("publish a new release", "gh release create"),
        ("download release assets", "gh release download"),
        ("cancel a workflow run", "gh run cancel"),
        ("watch a workflow run until it finishes", "gh run watch"),
        ("trigger a workflow", "gh workflow run"),
        ("log in to GitHub", "gh auth login"),
        ("print the auth token", "gh auth token"),
        ("create a gist from a file", "gh gist create"),
        ("set a repository secret", "gh secret set"),
        ("add an SSH key to my account", "gh ssh-key add"),
        ("create a label", "gh label create"),
        ("search code on GitHub", "gh search code"),
        ("make an authenticated API request", "gh api"),
        ("install an extension", "gh extension install"),
        ("ssh into a codespace", "gh codespace ssh"),
        ("set a configuration value", "gh config set"),
    ]
    .iter()
    .map(|(q, t)| (q.to_string(), t.to_string()))
    .collect();
    for (q, want) in &labelled {
        assert!(titles.contains(want), "{want} is not a command");
        let got: Vec<&str> = index
            .search(q, 5)
            .iter()
            .map(|h| titles[h.index].as_str())
            .collect();
        println!("{q:?} → {got:?}");
    }
    let at1 = recall(&index, &titles, &labelled, 1);
    let at5 = recall(&index, &titles, &labelled, 5);
    println!(
        "gh corpus, {} labelled queries: recall@1 {at1:.2}, recall@5 {at5:.2}",
        labelled.len()
    );
    assert!(at5 >= 0.85, "recall@5 {at5}");
}

/// A turn over the meta-tools: search and describe are answered without running anything,
/// run goes through the runner and really runs git.
#[test]
fn meta_tools_search_describe_and_run_in_one_turn() {
    let git = support::workspace().join("examples/atip/git.json");
    let doc =
        Document::from_path(&git, atip_runtime::Mode::Strict, &FlattenOptions::default()).unwrap();
    let meta = MetaTools::new(LoadedCommands::new(doc, None));
    let names: Vec<&str> = meta.specs().iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(
        names,
        ["search_commands", "describe_command", "run_command"]
    );
    assert_eq!(meta.commands().len(), 20, "policies see the real commands");
    let repo = tempfile::tempdir().unwrap();
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(repo.path())
        .status()
        .unwrap()
        .success());
    std::fs::write(repo.path().join("new.txt"), "x").unwrap();
    let body = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
    "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1},
    "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "search_commands",
         "input": {"query": "show the working tree status", "top": 3}},
        {"type": "tool_use", "id": "toolu_2", "name": "describe_command",
         "input": {"name": "git_stauts"}},
        {"type": "tool_use", "id": "toolu_3", "name": "describe_command",
         "input": {"name": "git_status"}},
        {"type": "tool_use", "id": "toolu_4", "name": "run_command",
         "input": {"name": "git_status", "arguments": "{\"short\": true}"}},
        {"type": "tool_use", "id": "toolu_5", "name": "run_command",
         "input": {"name": "git_clean", "arguments": {"force": true}}}
    ]})
    .to_string();
    let mut driver = TurnDriver::new(
        Provider::Anthropic,
        meta,
        Runner::new().current_dir(repo.path()),
    );
    let out = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(driver.turn(&body))
        .unwrap();
    let statuses: Vec<&CallStatus> = out.calls.iter().map(|c| &c.status).collect();
    assert_eq!(
        statuses,
        [
            &CallStatus::Answered,
            &CallStatus::Answered,
            &CallStatus::Answered,
            &CallStatus::Ran { success: true },
            &CallStatus::Unconfirmed
        ]
    );
    let search = &out.calls[0].result.content;
    assert!(search.starts_with("git_status — git status:"), "{search}");
    assert!(out.calls[1].result.is_error);
    assert!(out.calls[1]
        .result
        .content
        .contains("did you mean `git_status`?"));
    assert!(out.calls[2].result.content.contains("\"inputSchema\""));
    assert!(out.calls[3].result.content.contains("?? new.txt"));
    assert!(
        repo.path().join("new.txt").exists(),
        "git clean needed a person"
    );
    // The results go back as one user message with five tool_result blocks.
    assert_eq!(out.messages[1]["content"].as_array().unwrap().len(), 5);
}
