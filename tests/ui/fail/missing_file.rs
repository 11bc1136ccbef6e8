mod nothing {
    atip_runtime::include_atip!("atip/does-not-exist.json");
}
fn main() {}
