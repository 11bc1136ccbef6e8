// `head` of the MCP filesystem server's `read_text_file` is a number (its saved tools/list).
fn main() {
    let _ = atip_ui_tests::filesystem::ReadTextFile::new("/data/a.txt").head("ten");
}
