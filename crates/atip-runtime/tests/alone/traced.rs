//! Every stage of a call is traced inside its `atip.call` span. First in this binary: `tracing`
//! caches per call site whether a subscriber listens, and a call made earlier (or on another
//! thread) without one would make the call sites here silent.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::common::{call, rt};
use atip_runtime::{ConfirmationRequest, Runner};

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn every_stage_is_traced_inside_the_call_span() {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        rt().block_on(async {
            let runner = Runner::new().confirm_with(|_: ConfirmationRequest| async { true });
            runner
                .run(&call(
                    "call_9",
                    &["true"],
                    r#"{"filesystem":{"read":true,"write":false,"delete":false},"network":false,
                        "destructive":true,"idempotent":true,"reversible":false}"#,
                ))
                .await
                .unwrap();
        });
    });
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    for needle in [
        "atip.call{tool=test_true call_id=\"call_9\"}: atip_runtime::exec: policy decision=\"confirm\"",
        "confirmation confirmed=true",
        ": sandbox enforced=",
        "exit status=exit code 0",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}
