//! A large, realistic ATIP document: an aws-like CLI with many services × many operations ×
//! many options, long descriptions, enums, arrays, and flattened names past 64 characters.
//! Deterministic: the same [`Shape`] always gives the same bytes.

use serde_json::{json, Map, Value};

/// How big the document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Services (the first command level).
    pub services: usize,
    /// Operations per service (the leaves).
    pub operations: usize,
    /// Options per operation, besides the service's (inherited) and the global ones.
    pub options: usize,
    /// Options declared on each service, inherited by its operations.
    pub service_options: usize,
    /// Characters of each operation's description (about).
    pub description_len: usize,
}

impl Shape {
    /// The aws-sized document: 300 services × 70 operations = 21,000 commands, each with 5
    /// options of its own, 8 inherited from its service and 6 global ones; about 49 MB.
    pub const AWS: Shape = Shape {
        services: 300,
        operations: 70,
        options: 5,
        service_options: 8,
        description_len: 200,
    };

    /// Exactly `n` commands (`n` ≥ 1) with the aws document's proportions per command: as
    /// many operations per service as the largest divisor of `n` up to 70.
    pub fn commands(n: usize) -> Shape {
        let n = n.max(1);
        let operations = (1..=n.min(70))
            .rev()
            .find(|d| n.is_multiple_of(*d))
            .unwrap_or(1);
        Shape {
            services: n / operations,
            operations,
            ..Shape::AWS
        }
    }

    /// The number of commands (leaves) the document has.
    pub fn command_count(&self) -> usize {
        self.services * self.operations
    }
}

const SERVICES: [&str; 24] = [
    "ec2",
    "s3api",
    "lambda",
    "dynamodb",
    "cloudformation",
    "elasticloadbalancingv2",
    "route53resolver",
    "servicecatalog-appregistry",
    "kinesis-video-archived-media",
    "sagemaker-featurestore-runtime",
    "iam",
    "sts",
    "ecs",
    "eks",
    "rds",
    "redshift-serverless",
    "cloudwatch",
    "logs",
    "sqs",
    "sns",
    "kms",
    "secretsmanager",
    "ssm-incidents",
    "application-autoscaling",
];

const VERBS: [&str; 18] = [
    "describe",
    "list",
    "get",
    "create",
    "update",
    "delete",
    "put",
    "modify",
    "start",
    "stop",
    "tag",
    "untag",
    "batch-get",
    "associate",
    "disassociate",
    "terminate",
    "restore",
    "enable",
];

const NOUNS: [&str; 24] = [
    "instance",
    "volume",
    "snapshot",
    "load-balancer",
    "target-group",
    "listener-certificates",
    "replication-configuration",
    "resource-policy",
    "access-point",
    "service-linked-role-deletion-status",
    "cluster",
    "task-definition",
    "stack-set-operation-results",
    "event-source-mapping",
    "table-replica-auto-scaling",
    "key-rotation-status",
    "parameter-history",
    "queue-attributes",
    "subscription-attributes",
    "db-cluster-parameter-group",
    "scalable-target",
    "log-group-field-index-policy",
    "incident-record",
    "workgroup",
];

const WORDS: [&str; 32] = [
    "the",
    "resource",
    "returns",
    "information",
    "about",
    "specified",
    "one",
    "or",
    "more",
    "results",
    "filter",
    "by",
    "tag",
    "account",
    "region",
    "request",
    "you",
    "can",
    "use",
    "this",
    "operation",
    "to",
    "paginate",
    "identifier",
    "for",
    "each",
    "item",
    "when",
    "permissions",
    "required",
    "call",
    "and",
];

/// A small deterministic generator (xorshift64*), so generated data never changes: the state
/// is the seed (not zero).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(crate) fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[(self.next_u64() % list.len() as u64) as usize]
    }

    pub(crate) fn prose(&mut self, len: usize) -> String {
        let mut out = String::with_capacity(len + 16);
        while out.len() < len {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(self.pick(&WORDS));
        }
        out.push('.');
        let mut c = out.chars();
        match c.next() {
            Some(first) => first.to_uppercase().chain(c).collect(),
            None => out,
        }
    }
}

/// The name of service `i`: a base name, numbered after the first round.
pub fn service_name(i: usize) -> String {
    let base = SERVICES[i % SERVICES.len()];
    match i / SERVICES.len() {
        0 => base.to_owned(),
        round => format!("{base}{round}"),
    }
}

/// The name of operation `j` of service `i`: a verb and a noun, distinct within the service.
pub fn operation_name(i: usize, j: usize) -> String {
    let verb = VERBS[j % VERBS.len()];
    let noun = NOUNS[(j / VERBS.len() + i) % NOUNS.len()];
    format!("{verb}-{noun}")
}

fn effects(verb: &str) -> Value {
    let read_only = matches!(verb, "describe" | "list" | "get" | "batch-get");
    let destructive = matches!(verb, "delete" | "terminate" | "disassociate");
    json!({
        "network": true,
        "filesystem": {"read": false, "write": false},
        "idempotent": read_only || matches!(verb, "put" | "tag" | "untag" | "enable"),
        "reversible": !destructive,
        "destructive": destructive,
        "cost": {"billable": !read_only, "estimate": if read_only { "free" } else { "low" }},
        "interactive": {"stdin": "none", "prompts": false, "tty": false},
        "duration": {"typical": "1-5s", "timeout": "60s"}
    })
}

fn option(rng: &mut Rng, noun: &str, k: usize) -> Value {
    let id = format!("{noun}-id");
    let (name, ty, extra): (String, &str, Map<String, Value>) = match k {
        0 => (id, "string", Map::new()),
        1 => ("max-items".into(), "integer", Map::new()),
        2 => ("starting-token".into(), "string", Map::new()),
        3 => ("filters".into(), "array", Map::new()),
        4 => ("dry-run".into(), "boolean", Map::new()),
        5 => {
            let mut m = Map::new();
            m.insert(
                "enum".into(),
                json!(["ENABLED", "DISABLED", "PENDING", "FAILED", "IN_PROGRESS"]),
            );
            ("state".into(), "enum", m)
        }
        6 => ("tags".into(), "array", Map::new()),
        7 => ("client-token".into(), "string", Map::new()),
        8 => ("page-size".into(), "integer", {
            let mut m = Map::new();
            m.insert("default".into(), json!(100));
            m
        }),
        9 => ("cli-input-json".into(), "file", Map::new()),
        10 => ("endpoint-override".into(), "url", Map::new()),
        11 => ("include-deprecated".into(), "boolean", Map::new()),
        12 => ("output-format".into(), "enum", {
            let mut m = Map::new();
            m.insert("enum".into(), json!(["json", "text", "table", "yaml"]));
            m
        }),
        n => (format!("option-{n}"), "string", Map::new()),
    };
    let mut o = Map::new();
    o.insert("name".into(), json!(name));
    o.insert("flags".into(), json!([format!("--{name}")]));
    o.insert("type".into(), json!(ty));
    let len = 30 + (rng.next_u64() % 60) as usize;
    let text = rng.prose(len);
    o.insert("description".into(), json!(text));
    if k == 0 {
        o.insert("required".into(), json!(true));
    }
    o.extend(extra);
    Value::Object(o)
}

/// The document as a JSON value.
pub fn value(shape: &Shape) -> Value {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut services = Map::new();
    for i in 0..shape.services {
        let mut operations = Map::new();
        for j in 0..shape.operations {
            let verb = VERBS[j % VERBS.len()];
            let noun = NOUNS[(j / VERBS.len() + i) % NOUNS.len()];
            let options: Vec<Value> = (0..shape.options)
                .map(|k| option(&mut rng, noun, k))
                .collect();
            let description = rng.prose(shape.description_len);
            operations.insert(
                operation_name(i, j),
                json!({
                    "description": description,
                    "options": options,
                    "effects": effects(verb)
                }),
            );
        }
        let inherited: Vec<Value> = (0..shape.service_options)
            .map(|k| option(&mut rng, "service", shape.options + k))
            .collect();
        services.insert(
            service_name(i),
            json!({
                "description": rng.prose(80),
                "options": inherited,
                "commands": operations
            }),
        );
    }
    json!({
        "atip": {"version": "0.6"},
        "name": "awsx",
        "version": "2.31.0",
        "description": "A large aws-like command-line interface, generated for scale tests",
        "trust": {"source": "vendor", "verified": true},
        "globalOptions": [
            {"name": "region", "flags": ["--region"], "type": "string", "description": "The region to send the request to"},
            {"name": "profile", "flags": ["--profile"], "type": "string", "description": "A named profile from the credentials file"},
            {"name": "output", "flags": ["--output"], "type": "enum", "enum": ["json", "text", "table", "yaml"], "description": "The formatting style for command output"},
            {"name": "debug", "flags": ["--debug"], "type": "boolean", "description": "Turn on debug logging"},
            {"name": "no-paginate", "flags": ["--no-paginate"], "type": "boolean", "description": "Disable automatic pagination"},
            {"name": "cli-read-timeout", "flags": ["--cli-read-timeout"], "type": "integer", "description": "The maximum socket read time in seconds"}
        ],
        "effects": {"network": true},
        "commands": services
    })
}

/// The document as pretty-printed JSON text.
pub fn document(shape: &Shape) -> String {
    serde_json::to_string_pretty(&value(shape)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_gives_exactly_n() {
        for n in [1, 10, 97, 100, 1_000, 10_000] {
            assert_eq!(Shape::commands(n).command_count(), n);
        }
        assert_eq!(Shape::commands(1_000).operations, 50);
    }
}
