mod filtered {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/examples/atip/git.json", comands = ["log"]);
}
mod unmatched {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/examples/atip/git.json", commands = ["lgo"]);
}
fn main() {}
