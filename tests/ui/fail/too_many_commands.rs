// More commands than `max_commands`: refused before any code is generated, with a hint.
mod git {
    atip_runtime::include_atip!("${ATIP_WORKSPACE}/examples/atip/git.json", max_commands = 3);
}
// The filter brings it under the limit.
mod filtered {
    atip_runtime::include_atip!(
        "${ATIP_WORKSPACE}/examples/atip/git.json",
        commands = ["log", "status"],
        max_commands = 3
    );
}
fn main() {
    let _ = filtered::Log::new();
}
