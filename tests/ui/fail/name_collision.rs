mod clash {
    atip_runtime::include_atip!("../../../../tests/fixtures/collision.json");
}
fn main() {}
