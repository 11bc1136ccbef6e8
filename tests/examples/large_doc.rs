//! Writes the aws-like test document with about N commands to a file:
//! `cargo run -p atip-tests --release --example large_doc -- N OUT.json` (N = `aws` for the
//! full 21,000-command shape).

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(n), Some(out)) = (args.next(), args.next()) else {
        eprintln!("usage: large_doc N|aws OUT.json");
        std::process::exit(2);
    };
    let shape = match n.as_str() {
        "aws" => atip_tests::large::Shape::AWS,
        n => match n.parse() {
            Ok(n) => atip_tests::large::Shape::commands(n),
            Err(e) => {
                eprintln!("N: {e}");
                std::process::exit(2);
            }
        },
    };
    if let Err(e) = std::fs::write(&out, atip_tests::large::document(&shape)) {
        eprintln!("{out}: {e}");
        std::process::exit(1);
    }
}
