//! Prints its arguments (all but the program name) as a JSON array of strings, for tests that check
//! exactly what a process received. Non-UTF-8 arguments are printed lossily.

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    println!("{}", serde_json::to_string(&args).unwrap_or_default());
}
