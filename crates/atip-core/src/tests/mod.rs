//! Loading, validation and flattening of ATIP metadata, provider limits, and discovery's
//! fallback to shims.

mod flatten;
mod limits;
mod load;
#[cfg(unix)]
mod shims;
