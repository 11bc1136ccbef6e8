fn main() {
    let s = atip_tests::output::sample(1 << 20, 200);
    let f = atip_runtime::ResultFilter::new().max_bytes(usize::MAX);
    let _ = f.redact(&s.text);
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..20 {
        n += f.redact(&s.text).1;
    }
    eprintln!("{:?} per MiB, {n}", t.elapsed() / 20);
    let lines = s.text.lines().count();
    eprintln!("{lines} lines");
}
