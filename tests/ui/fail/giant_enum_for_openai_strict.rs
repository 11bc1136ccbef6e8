// An enum of 1,100 values: more than OpenAI strict mode's 1,000 per schema. The definition is
// degraded when sent, and the build says so (a warning, made an error here).
#![deny(deprecated)]
mod fleet {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/tests/fixtures/giant_enum.json");
}
fn main() {
    assert_eq!(fleet::Call::NAMES.len(), 2);
}
