mod broken {
    atip_runtime::include_atip!("../../../../tests/fixtures/malformed.json");
}
fn main() {}
