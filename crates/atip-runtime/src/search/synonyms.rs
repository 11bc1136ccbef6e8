//! The words people use for what command-line metadata names otherwise: verbs ("shut down" for
//! `stop`, "tear down" for `delete`, "what are" for `list`) and nouns of the cloud and of code
//! hosting ("virtual machine" for `instance`, "who am I" for `get-caller-identity`, "DNS" for
//! Route 53 record sets, "PR" for pull request).
//!
//! [`expand`] is applied to a query at search time ([`super::ToolIndex::search`]): the words of
//! every phrase of [`TABLE`] found in the query are added at a lower weight, so the index holds
//! only the commands' own words and a synonym never outweighs what the person wrote.

/// Phrases a person says, each with the words the metadata uses for it. A phrase matches whole
/// words of the lowercased query (`"vm"` matches "stop my vm", not "vmware"); the words are
/// added to the query, stemmed like any other.
pub const TABLE: &[(&[&str], &str)] = &[
    // Verbs.
    (
        &[
            "stop",
            "halt",
            "shut down",
            "shutdown",
            "turn off",
            "kill",
            "abort",
            "pause",
        ],
        "stop cancel disable",
    ),
    (
        &[
            "delete",
            "remove",
            "tear down",
            "teardown",
            "destroy",
            "get rid of",
            "drop",
            "erase",
            "wipe",
            "for good",
            "throw away",
            "abandon",
        ],
        "delete remove",
    ),
    (
        &[
            "list",
            "what are",
            "which",
            "what",
            "all",
            "do i have",
            "are there",
            "exist",
            "enumerate",
            "recent",
        ],
        "list describe",
    ),
    (
        &[
            "show",
            "see",
            "view",
            "display",
            "details",
            "look at",
            "inspect",
            "info",
            "information",
            "settings of",
            "how is",
            "read the",
        ],
        "view get describe",
    ),
    (
        &[
            "make",
            "new",
            "create",
            "set up",
            "setup",
            "spin up",
            "provision",
            "open a",
            "open an",
            "file a",
            "report",
            "deploy a new",
        ],
        "create",
    ),
    (
        &[
            "start", "launch", "boot", "kick off", "trigger", "run", "execute", "fire",
        ],
        "start run invoke execute",
    ),
    (
        &[
            "change",
            "modify",
            "edit",
            "alter",
            "update",
            "adjust",
            "rename",
            "apply new",
        ],
        "update edit set put modify",
    ),
    (
        &[
            "upload", "store", "save", "write", "insert", "push", "attach",
        ],
        "put upload set",
    ),
    (
        &[
            "download",
            "fetch",
            "grab",
            "retrieve",
            "pull down",
            "read",
            "off the",
        ],
        "get download receive",
    ),
    (
        &["restart", "reboot", "retry", "again"],
        "reboot restart rerun reopen",
    ),
    (&["log in", "login", "sign in", "authenticate"], "login"),
    (&["log out", "logout", "sign out"], "logout"),
    (
        &["give", "grant", "allow", "let"],
        "add attach grant permission",
    ),
    (&["empty", "clear", "flush"], "purge clear delete"),
    (&["follow", "live", "until", "tail"], "watch tail follow"),
    (&["reply", "respond"], "comment"),
    (
        &["approve", "request changes", "sign off"],
        "review approve",
    ),
    (&["put", "into a group", "in a group"], "add put"),
    // Who and where am I.
    (
        &[
            "who am i",
            "whoami",
            "which account",
            "my account",
            "account id",
            "logged in as",
            "logged into",
            "logged in",
            "my identity",
            "current user",
        ],
        "caller identity account status",
    ),
    // Compute.
    (
        &[
            "virtual machine",
            "virtual machines",
            "vm",
            "vms",
            "server",
            "servers",
            "box",
        ],
        "instance instances ec2",
    ),
    (
        &[
            "serverless",
            "lambda",
            "lambdas",
            "function",
            "functions",
            "code",
        ],
        "lambda function",
    ),
    (
        &["container", "containers", "docker"],
        "container task service ecs image",
    ),
    (&["kubernetes", "k8s"], "eks cluster"),
    (
        &["firewall", "open port", "ports"],
        "security group ingress",
    ),
    // Storage and data.
    (&["bucket", "buckets", "s3"], "s3api bucket"),
    (&["file", "files", "blob", "blobs"], "object objects"),
    (&["website", "static site"], "website bucket"),
    (
        &["database", "databases", "db", "nosql", "sql"],
        "database db rds dynamodb table statement",
    ),
    (
        &["row", "rows", "record", "records", "entry", "entries"],
        "item items",
    ),
    (&["every row", "whole table", "everything in"], "scan"),
    (&["backup", "back up", "snapshot"], "backup snapshot"),
    (
        &["expire", "expiry", "ttl", "after a while"],
        "expiration lifecycle time live",
    ),
    (&["version history", "old versions"], "versions"),
    // Networking.
    (
        &["dns", "domain", "domains", "dns records", "hosted zone"],
        "route53 hosted zone resource record sets",
    ),
    (&["load balancer", "lb"], "elb load balancer target group"),
    (&["cdn"], "cloudfront distribution"),
    (&["url", "link", "https"], "url endpoint"),
    (&["cross origin"], "cors"),
    (&["region", "where"], "location region"),
    // Identity, keys and secrets.
    (
        &[
            "who can",
            "who is allowed",
            "permissions",
            "permission",
            "access",
            "allowed",
        ],
        "policy acl permission access",
    ),
    (&["user", "users", "person", "people"], "user users iam"),
    (&["role", "roles"], "role roles iam"),
    (&["password", "passwords"], "password login profile"),
    (&["mfa", "2fa", "two factor", "authenticator"], "mfa device"),
    (
        &["temporary credentials", "session token", "credentials"],
        "sts credentials token session assume",
    ),
    (
        &[
            "encryption key",
            "encryption keys",
            "encrypt",
            "decrypt",
            "crypto",
        ],
        "kms key encrypt decrypt",
    ),
    (&["friendly name", "nickname"], "alias"),
    (&["random"], "generate random"),
    (&["certificate", "cert", "tls", "ssl"], "certificate acm"),
    // Messaging.
    (&["queue", "queues"], "sqs queue message"),
    (
        &[
            "notification",
            "notifications",
            "notify",
            "alert",
            "alerts",
            "email",
            "sms",
            "text message",
            "subscribed",
        ],
        "sns topic publish subscribe subscription",
    ),
    // Infrastructure and logs.
    (
        &[
            "infrastructure",
            "template",
            "stack",
            "stacks",
            "deploy",
            "deployment",
        ],
        "cloudformation stack template",
    ),
    (
        &["by hand", "drift", "drifted", "changed my resources"],
        "drift detect",
    ),
    (&["preview", "dry run", "before updating"], "change set"),
    (
        &["stop people deleting", "protect"],
        "termination protection",
    ),
    (&["what happened", "history"], "events"),
    (&["logs", "log", "logging"], "log logs events"),
    (&["errors", "grep", "search the logs"], "filter"),
    (&["keep", "retention", "only"], "retention"),
    (&["insights"], "query start"),
    (&["pattern", "metric"], "metric filter"),
    (&["stream logs", "forward logs"], "subscription filter"),
    // Code hosting.
    (
        &[
            "pr",
            "prs",
            "pull request",
            "pull requests",
            "merge request",
        ],
        "pr pull request",
    ),
    (&["bug", "bugs", "ticket", "tickets"], "issue issues"),
    (&["snippet", "snippets", "paste"], "gist gists"),
    (
        &[
            "ci",
            "build",
            "builds",
            "job",
            "jobs",
            "pipeline",
            "github action",
            "actions",
        ],
        "run workflow checks",
    ),
    (
        &["tests pass", "checks", "ci status", "did the tests"],
        "checks status",
    ),
    (&["plugin", "plugins", "addon", "add on"], "extension"),
    (&["dev environment", "devbox", "cloud dev"], "codespace"),
    (
        &["repo", "repos", "repository", "repositories"],
        "repo repository",
    ),
    (
        &["my machine", "my laptop", "locally", "onto my", "a copy"],
        "checkout clone local",
    ),
    (&["someone's repo", "my account"], "fork"),
    (&["read-only", "read only"], "archive lock"),
    (
        &["behind upstream", "up to date", "behind"],
        "sync update branch",
    ),
    (
        &["no longer a draft", "draft", "ready"],
        "ready draft review",
    ),
    (
        &["ship", "publish", "released", "versions", "version"],
        "release publish",
    ),
    (
        &["binaries", "binary", "assets", "artifacts"],
        "asset assets artifacts download",
    ),
    (&["shortcut"], "alias"),
    (&["rest", "graphql", "api"], "api request"),
    (
        &["tab completion", "autocomplete", "completion"],
        "completion",
    ),
    (&["browser", "web"], "browse"),
    (&["stop people commenting", "lock"], "lock conversation"),
    (&["top of", "pin", "sticky"], "pin"),
    (&["move", "different repo"], "transfer"),
    (&["branch to fix", "start a branch"], "develop branch"),
    (
        &["provenance", "attestation", "signature"],
        "attestation verify",
    ),
    (&["protection rules", "branch protection"], "ruleset rules"),
    (&["editor", "preference", "preferences"], "config"),
    (&["token"], "token auth"),
    (&["project board", "board"], "project item"),
];

/// The words the phrases of [`TABLE`] found in `query` stand for, space-separated; empty when
/// none is found.
///
/// ```
/// use atip_runtime::search::synonyms::expand;
/// assert!(expand("stop my virtual machine").contains("instance"));
/// assert!(expand("who am I").contains("caller identity"));
/// assert_eq!(expand("vmware"), "");
/// ```
pub fn expand(query: &str) -> String {
    let mut padded = String::with_capacity(query.len() + 2);
    padded.push(' ');
    for c in query.chars() {
        if c.is_alphanumeric() || c == '\'' {
            padded.extend(c.to_lowercase());
        } else if c == '-' {
            padded.push('-');
        } else if !padded.ends_with(' ') {
            padded.push(' ');
        }
    }
    padded.push(' ');
    let mut out = String::new();
    for (phrases, words) in TABLE {
        let found = phrases.iter().any(|p| {
            padded
                .match_indices(p)
                .any(|(i, _)| padded[..i].ends_with(' ') && padded[i + p.len()..].starts_with(' '))
        });
        if found {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(words);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_whole_words_only() {
        assert!(expand("Shut down my VM").contains("stop"));
        assert!(expand("Shut down my VM").contains("instance"));
        assert!(expand("tear down the stack").contains("delete"));
        assert!(expand("tear down the stack").contains("cloudformation"));
        assert!(expand("show the DNS records of my domain").contains("route53"));
        assert!(expand("delete the old database").contains("rds"));
        assert!(expand("which account am I logged into").contains("caller identity"));
        assert_eq!(expand("vmware"), "");
        assert_eq!(expand("stopwatch"), "");
        assert_eq!(expand(""), "");
    }

    #[test]
    fn every_row_is_lowercase_and_nonempty() {
        for (phrases, words) in TABLE {
            assert!(!phrases.is_empty() && !words.trim().is_empty());
            for p in *phrases {
                assert_eq!(p.to_lowercase(), *p, "{p}");
                assert_eq!(p.trim(), *p, "{p}");
            }
        }
    }
}
