mod nameless {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/tests/fixtures/missing-name.json");
}
fn main() {}
