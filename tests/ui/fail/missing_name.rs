mod nameless {
    atip_runtime::include_atip!("../../../../tests/fixtures/missing-name.json");
}
fn main() {}
