// 130 commands: a warning that OpenAI takes at most 128 per request, made an error here.
#![deny(deprecated)]
mod wide {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/tests/fixtures/wide.json");
}
fn main() {
    assert_eq!(wide::Call::NAMES.len(), 130);
}
