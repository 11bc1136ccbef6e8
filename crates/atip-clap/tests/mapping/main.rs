//! clap programs to ATIP (`atip_clap::document`, the `--agent` helpers) and back through the
//! runtime's dispatch, checked by clap's own parser.

mod document;
mod oracle;
