//! Changes of declared effects (spec §3.6), compared as each command declares them (not
//! merged): each field's change kind and impact.

use atip_core::diagnostic::JsonPath;
use atip_core::effects::Effects;
use serde_json::Value;

use super::change::{ChangeKind, Impact};
use super::differ::Differ;

impl Differ {
    pub(super) fn effects(
        &mut self,
        old: Option<&Effects>,
        new: Option<&Effects>,
        at: &JsonPath,
        who: &str,
    ) {
        let unknown = Effects::UNKNOWN;
        let (o, n) = (old.unwrap_or(&unknown), new.unwrap_or(&unknown));
        let b = |v: Option<bool>| v.map(Value::Bool);
        if o.destructive != n.destructive {
            if n.destructive == Some(true) {
                self.effect(
                    ChangeKind::DestructiveAdded,
                    Impact::High,
                    at.key("destructive"),
                    format!("{who} is now declared destructive: calls need confirmation"),
                    b(o.destructive),
                    b(n.destructive),
                );
            } else if o.destructive == Some(true) {
                self.effect(
                    ChangeKind::DestructiveRemoved,
                    Impact::High,
                    at.key("destructive"),
                    format!("{who} is no longer declared destructive"),
                    b(o.destructive),
                    b(n.destructive),
                );
            }
        }
        let flags = [
            (
                ChangeKind::ReversibleChanged,
                Impact::Medium,
                "reversible",
                o.reversible,
                n.reversible,
            ),
            (
                ChangeKind::IdempotentChanged,
                Impact::Medium,
                "idempotent",
                o.idempotent,
                n.idempotent,
            ),
            (
                ChangeKind::NetworkChanged,
                Impact::Low,
                "network",
                o.network,
                n.network,
            ),
            (
                ChangeKind::SubprocessChanged,
                Impact::Medium,
                "subprocess",
                o.subprocess,
                n.subprocess,
            ),
        ];
        for (kind, impact, field, ov, nv) in flags {
            if ov != nv {
                self.effect(
                    kind,
                    impact,
                    at.key(field),
                    format!(
                        "`{field}` of {who} changed from {} to {}",
                        word(ov),
                        word(nv)
                    ),
                    b(ov),
                    b(nv),
                );
            }
        }
        let json = |v: &dyn erased::ToValue| v.to_value();
        if o.filesystem != n.filesystem {
            self.effect(
                ChangeKind::FilesystemChanged,
                Impact::Medium,
                at.key("filesystem"),
                format!("filesystem effects of {who} changed"),
                json(&o.filesystem),
                json(&n.filesystem),
            );
        }
        if o.interactive != n.interactive {
            self.effect(
                ChangeKind::InteractiveChanged,
                Impact::Medium,
                at.key("interactive"),
                format!("interactive effects of {who} changed"),
                json(&o.interactive),
                json(&n.interactive),
            );
        }
        if o.billable() != n.billable() {
            self.effect(
                ChangeKind::CostChanged,
                Impact::High,
                at.key("cost").key("billable"),
                format!(
                    "`cost.billable` of {who} changed from {} to {}",
                    word(o.billable()),
                    word(n.billable())
                ),
                b(o.billable()),
                b(n.billable()),
            );
        }
        if o.cost_estimate() != n.cost_estimate() {
            let est = |e: Option<atip_core::CostEstimate>| e.map(|e| Value::from(e.as_str()));
            self.effect(
                ChangeKind::CostChanged,
                Impact::Low,
                at.key("cost").key("estimate"),
                format!("`cost.estimate` of {who} changed"),
                est(o.cost_estimate()),
                est(n.cost_estimate()),
            );
        }
        if o.duration != n.duration {
            self.effect(
                ChangeKind::DurationChanged,
                Impact::Low,
                at.key("duration"),
                format!("duration of {who} changed"),
                json(&o.duration),
                json(&n.duration),
            );
        }
    }
}

/// A declared boolean as text: `true`, `false` or `undeclared`.
fn word(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "true",
        Some(false) => "false",
        None => "undeclared",
    }
}

/// Effects sub-objects as JSON, for [`Change::old`] and [`Change::new`].
mod erased {
    use serde_json::Value;

    pub trait ToValue {
        fn to_value(&self) -> Option<Value>;
    }

    impl<T: serde::Serialize> ToValue for Option<T> {
        fn to_value(&self) -> Option<Value> {
            self.as_ref().and_then(|v| serde_json::to_value(v).ok())
        }
    }
}
