mod nothing {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/examples/atip/gti.json");
}
fn main() {}
