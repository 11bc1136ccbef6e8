mod clash {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/tests/fixtures/collision.json");
}
fn main() {}
