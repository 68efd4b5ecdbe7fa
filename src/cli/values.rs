//! Value parsers shared by the commands: sizes, counts, ranges, bounds, levels, ratios, and any
//! library type read by its own `FromStr`. Each error names the value as the user typed it.
//!
//! Tests: tests/faults/numbers.rs (a property test over every numeric argument),
//! tests/faults/cli.rs.

/// "X,Z": two non-negative integers.
pub fn parse_bound(s: &str) -> Result<(u64, u64), String> {
    let (x, z) = s
        .split_once(',')
        .ok_or_else(|| format!("'{s}' is not X,Z (two integers and a comma)"))?;
    Ok((parse_count(x.trim())?, parse_count(z.trim())?))
}

/// "A..B" (or "A..=B"): an inclusive range of positive sizes with A <= B.
pub fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("'{s}' is not a range A..B"))?;
    let b = b.strip_prefix('=').unwrap_or(b);
    let (a, b) = (parse_size(a.trim())?, parse_size(b.trim())?);
    if a > b {
        return Err(format!("the range {a}..{b} is empty"));
    }
    Ok((a, b))
}

/// A non-negative integer (0 allowed): digits only, underscores allowed as separators.
pub fn parse_count(s: &str) -> Result<u64, String> {
    let digits: String = s.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{s}' is not a non-negative integer"));
    }
    digits
        .parse::<u64>()
        .map_err(|_| format!("'{s}' is larger than 2^64-1"))
}

/// A positive integer size: digits only (underscores allowed as separators), at least 1.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let digits: String = s.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{s}' is not a positive integer"));
    }
    match digits.parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("'{s}' is larger than 2^64-1")),
    }
}

/// An unsigned integer type a flag holds, and its largest value.
pub trait Unsigned: TryFrom<u64> + Clone + Send + Sync + 'static {
    const MAX: u64;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Unsigned for $t {
            const MAX: u64 = <$t>::MAX as u64;
        }
    )*};
}
unsigned!(u8, u16, u32, u64);

/// A non-negative integer that fits `T`: digits only, underscores allowed as separators.
pub fn parse_int<T: Unsigned>(s: &str) -> Result<T, String> {
    int_in(0..=T::MAX)(s)
}

/// A non-negative integer in `range` (which fits `T`), in the words of [`parse_count`].
pub fn int_in<T: Unsigned>(
    range: std::ops::RangeInclusive<u64>,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |s| {
        let v = parse_count(s)?;
        if !range.contains(&v) {
            return Err(match (*range.start(), *range.end()) {
                (0, max) => format!("'{s}' is larger than {max}"),
                (min, max) => format!("'{s}' is not in {min}..={max}"),
            });
        }
        T::try_from(v).map_err(|_| format!("'{s}' is larger than {}", T::MAX))
    }
}

/// Automaton steps: a positive integer, at most the automaton's
/// [`MAX_STEPS`](chompute::chocolate::automaton::MAX_STEPS).
pub fn parse_steps(s: &str) -> Result<u64, String> {
    use chompute::chocolate::automaton::MAX_STEPS;
    match parse_size(s)? {
        steps if steps > MAX_STEPS => Err(format!("the automaton runs at most {MAX_STEPS} steps")),
        steps => Ok(steps),
    }
}

/// A value of one of the library's types, read by the library's own parser ([`FromStr`]):
/// a window, a shade, a shard. Its message names the input by its flag.
///
/// [`FromStr`]: std::str::FromStr
pub fn library<T: std::str::FromStr<Err = chompute::Error>>(s: &str) -> Result<T, String> {
    s.parse()
        .map_err(|e: chompute::Error| e.worded(&crate::cli::flag))
}

/// A level N of the Sierpiński octahedron: 0 ..= 60.
pub fn parse_level(s: &str) -> Result<u32, String> {
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{s}' is not a level (an integer 0..=60)"));
    }
    match s.parse::<u32>() {
        Ok(n) if n <= chompute::chocolate::octahedron::MAX_LEVEL => Ok(n),
        _ => Err(format!(
            "level '{s}' is larger than {}",
            chompute::chocolate::octahedron::MAX_LEVEL
        )),
    }
}

/// An exact positive rational: 5, 5.5 or 11/2.
pub fn parse_ratio(s: &str) -> Result<chompute::chocolate::octahedron::Ratio, String> {
    chompute::chocolate::octahedron::parse_ratio(s).map_err(|e| e.to_string())
}
