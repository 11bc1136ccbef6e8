// `path` is required by the MCP filesystem server's `read_text_file` (its saved tools/list).
fn main() {
    let _ = atip_ui_tests::filesystem::ReadTextFile::new().head(3.0);
}
