//! Two pieces of work on two threads, for the large documents whose load, flattening and
//! tool definitions divide into independent halves (`load::node`, `flatten::split`,
//! `atip_runtime::LoadedCommands::definitions_json`).
//!
//! Public only so that the workspace's other crates share it (hidden from the docs): not part
//! of the API, and may change in any release.

/// The stack of the second thread: the work recurses once per level of a document, as on the
/// caller's thread, whose stack is usually this size.
const STACK: usize = 8 << 20;

/// Whether the machine has two cores or more (when it cannot tell: no).
pub fn available() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
}

/// Runs `first` on this thread and `second` on another, and returns both results. When no
/// thread can be started, `second` runs here after `first`. A panic of `second` carries on
/// here once `first` is done.
pub fn join<A, B: Send>(first: impl FnOnce() -> A, second: impl FnOnce() -> B + Send) -> (A, B) {
    let mut second = Some(second);
    let mut later = None;
    let a = std::thread::scope(|scope| {
        let (task, slot) = (&mut second, &mut later);
        let thread = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(scope, move || {
                if let Some(second) = task.take() {
                    *slot = Some(second());
                }
            });
        let a = first();
        if let Ok(thread) = thread {
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
        a
    });
    let b = match (later, second) {
        (Some(b), _) => b,
        (None, Some(second)) => second(),
        (None, None) => unreachable!("the second piece ran on one thread or the other"),
    };
    (a, b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_results_come_back_in_their_places() {
        let words = ["a", "b"];
        let (a, b) = super::join(|| words[0].repeat(2), || words[1].repeat(3));
        assert_eq!((a.as_str(), b.as_str()), ("aa", "bbb"));
    }

    #[test]
    fn a_panic_of_the_second_piece_carries_on_in_the_caller() {
        let caught = std::panic::catch_unwind(|| super::join(|| 1, || -> u8 { panic!("second") }));
        let message = caught.unwrap_err();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"second"));
    }
}
