//! A counting allocator for memory figures: the system allocator with live and peak byte
//! counters. A test or bench binary installs it with
//! `#[global_allocator] static A: atip_tests::alloc::Counting = atip_tests::alloc::Counting;`
//! and measures with [`peak_of`]. Heap bytes requested, not RSS.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting live bytes and their peak.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if new > layout.size() {
            grew(new - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new) }
    }
}

/// The peak heap growth while `f` runs, in bytes, and its result. Meaningful only with
/// [`Counting`] installed, and with nothing else allocating meanwhile (one test per binary).
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (PEAK.load(Ordering::Relaxed).saturating_sub(base), out)
}

/// How many allocations (and reallocations) `f` makes, and its result. Meaningful only with
/// [`Counting`] installed, and with nothing else allocating meanwhile (one test per binary).
pub fn allocations_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = ALLOCATIONS.load(Ordering::Relaxed);
    let out = f();
    (ALLOCATIONS.load(Ordering::Relaxed) - base, out)
}
