mod broken {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/tests/fixtures/malformed.json");
}
fn main() {}
