mod nothing {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/tests/fixtures/does-not-exist.json");
}
fn main() {}
