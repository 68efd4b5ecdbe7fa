//! The expression language for F(x,z) and h(z).
//!
//! Grammar (integers only; `/` is floor division):
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/' | '%') unary)*
//! unary   := '-' unary | primary
//! primary := INTEGER | 'x' | 'z' | '(' expr ')'
//!          | 'min' '(' expr ',' expr ')' | 'max' '(' expr ',' expr ')'
//!          | 'floor' '(' expr ')' | 'log2' '(' expr ')' | 'pow2' '(' expr ')'
//! ```
//!
//! `floor(a/b)` is a spelling of `a/b` (every value is already an integer), `log2(a)` is
//! ⌊log₂ a⌋ for a ≥ 1 and `pow2(a)` is 2^a. Parse errors name the 1-based column and what was
//! expected; division by zero, `log2` of a non-positive number, overflow and a negative final
//! value are evaluation errors. Nothing here panics or loops on any input: the input length
//! and the nesting depth are bounded, and the parser consumes a token on every step.
//!
//! Tests: this file's unit tests; tests/games/pass.rs.

use std::fmt;

/// Longest expression accepted, in characters (bounds the tree depth for evaluation).
pub const MAX_LEN: usize = 1000;
/// Deepest nesting of parentheses, calls and unary minus.
pub const MAX_DEPTH: usize = 64;

/// A binary operator of the expression language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`, rounding towards minus infinity (an error on division by zero)
    Div,
    /// `%`, the remainder of that division (an error on division by zero)
    Rem,
}

/// A function of the expression language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `min(a,b)`
    Min,
    /// `max(a,b)`
    Max,
    /// `floor(a)`: the identity on integers, kept for the paper's notation
    Floor,
    /// `log2(a)`: ⌊log₂ a⌋
    Log2,
    /// `pow2(a)`: 2^a
    Pow2,
}

impl Func {
    fn name(self) -> &'static str {
        match self {
            Func::Min => "min",
            Func::Max => "max",
            Func::Floor => "floor",
            Func::Log2 => "log2",
            Func::Pow2 => "pow2",
        }
    }

    fn arity(self) -> usize {
        match self {
            Func::Min | Func::Max => 2,
            _ => 1,
        }
    }
}

/// A parsed expression. `column` fields point at the operator or function name, for
/// evaluation errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// An integer literal.
    Num(i64),
    /// The variable x.
    X,
    /// The variable z.
    Z,
    /// Unary minus, at a column.
    Neg(Box<Expr>, usize),
    /// A binary operation, at the operator's column.
    Bin(BinOp, Box<Expr>, Box<Expr>, usize),
    /// A function call, at the name's column.
    Call(Func, Vec<Expr>, usize),
}

/// A parse error at a 1-based column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based column of the error.
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// An evaluation error (division by zero, overflow, a negative value, log2 of 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Num(i64),
    Name(String),
    Sym(char),
    End,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(n) => format!("'{n}'"),
        Tok::Name(s) => format!("'{s}'"),
        Tok::Sym(c) => format!("'{c}'"),
        Tok::End => "end of expression".into(),
    }
}

fn tokenize(src: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let mut value: i64 = 0;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                if let Some(d) = chars[i].to_digit(10) {
                    value = value
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(d as i64))
                        .ok_or_else(|| ParseError {
                            column,
                            message: format!("number at column {column} is larger than 2^63-1"),
                        })?;
                }
                i += 1;
            }
            out.push((Tok::Num(value), column));
        } else if c.is_ascii_alphabetic() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            out.push((Tok::Name(chars[start..i].iter().collect()), column));
        } else if "+-*/%(),".contains(c) {
            out.push((Tok::Sym(c), column));
            i += 1;
        } else {
            let hint = match c {
                '^' => "; write pow2(a) for 2^a",
                _ => "",
            };
            return Err(ParseError {
                column,
                message: format!(
                    "unexpected {c:?} at column {column}: expected a number, x, z, a function, an operator or a parenthesis{hint}"
                ),
            });
        }
    }
    out.push((Tok::End, chars.len() + 1));
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    depth: usize,
}

const OPERAND: &str = "a number, x, z, a function (min, max, floor, log2, pow2) or '('";

impl Parser {
    fn peek(&self) -> &(Tok, usize) {
        &self.toks[self.pos]
    }

    fn unexpected(&self, expected: &str) -> ParseError {
        let (t, column) = self.peek();
        let column = *column;
        let what = match t {
            Tok::End => "end of expression".to_string(),
            other => format!("unexpected {}", describe(other)),
        };
        ParseError {
            column,
            message: format!("{what} at column {column}: expected {expected}"),
        }
    }

    fn expect_sym(&mut self, c: char, expected: &str) -> Result<usize, ParseError> {
        match self.peek() {
            (Tok::Sym(s), column) if *s == c => {
                let column = *column;
                self.pos += 1;
                Ok(column)
            }
            _ => Err(self.unexpected(expected)),
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let column = self.peek().1;
            return Err(ParseError {
                column,
                message: format!("expression nests more than {MAX_DEPTH} deep at column {column}"),
            });
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.term()?;
        loop {
            let op = match self.peek() {
                (Tok::Sym('+'), c) => (BinOp::Add, *c),
                (Tok::Sym('-'), c) => (BinOp::Sub, *c),
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.term()?;
            left = Expr::Bin(op.0, Box::new(left), Box::new(right), op.1);
        }
    }

    fn term(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                (Tok::Sym('*'), c) => (BinOp::Mul, *c),
                (Tok::Sym('/'), c) => (BinOp::Div, *c),
                (Tok::Sym('%'), c) => (BinOp::Rem, *c),
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.unary()?;
            left = Expr::Bin(op.0, Box::new(left), Box::new(right), op.1);
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if let (Tok::Sym('-'), column) = self.peek() {
            let column = *column;
            self.pos += 1;
            self.enter()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Neg(Box::new(inner), column));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let (tok, column) = self.peek().clone();
        match tok {
            Tok::Num(n) => {
                self.pos += 1;
                Ok(Expr::Num(n))
            }
            Tok::Sym('(') => {
                self.pos += 1;
                self.enter()?;
                let inner = self.expr()?;
                self.expect_sym(')', "an operator or ')'")?;
                self.depth -= 1;
                Ok(inner)
            }
            Tok::Name(name) => {
                self.pos += 1;
                let func = match name.as_str() {
                    "x" => return Ok(Expr::X),
                    "z" => return Ok(Expr::Z),
                    "min" => Func::Min,
                    "max" => Func::Max,
                    "floor" => Func::Floor,
                    "log2" => Func::Log2,
                    "pow2" => Func::Pow2,
                    _ => {
                        return Err(ParseError {
                            column,
                            message: format!(
                                "unknown name '{name}' at column {column}: expected x, z, min, max, floor, log2 or pow2"
                            ),
                        })
                    }
                };
                self.expect_sym('(', &format!("'(' after {}", func.name()))?;
                self.enter()?;
                let mut args = vec![self.expr()?];
                for _ in 1..func.arity() {
                    self.expect_sym(
                        ',',
                        &format!("',' ({} takes {} arguments)", func.name(), func.arity()),
                    )?;
                    args.push(self.expr()?);
                }
                let close = if func.arity() == 1 {
                    format!("an operator or ')' ({} takes one argument)", func.name())
                } else {
                    format!(
                        "an operator or ')' ({} takes {} arguments)",
                        func.name(),
                        func.arity()
                    )
                };
                self.expect_sym(')', &close)?;
                self.depth -= 1;
                Ok(Expr::Call(func, args, column))
            }
            _ => Err(self.unexpected(OPERAND)),
        }
    }
}

/// Parse an expression over x and z.
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    let len = src.chars().count();
    if len > MAX_LEN {
        return Err(ParseError {
            column: MAX_LEN + 1,
            message: format!(
                "the expression is {len} characters long; at most {MAX_LEN} are accepted"
            ),
        });
    }
    let toks = tokenize(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    let e = p.expr()?;
    match p.peek() {
        (Tok::End, _) => Ok(e),
        _ => Err(p.unexpected("an operator or the end of the expression")),
    }
}

impl Expr {
    /// Does the expression read x?
    pub fn uses_x(&self) -> bool {
        match self {
            Expr::X => true,
            Expr::Num(_) | Expr::Z => false,
            Expr::Neg(e, _) => e.uses_x(),
            Expr::Bin(_, a, b, _) => a.uses_x() || b.uses_x(),
            Expr::Call(_, args, _) => args.iter().any(Expr::uses_x),
        }
    }

    /// Evaluate at (x, z); intermediate values may be negative, the result may not.
    pub fn eval(&self, x: u64, z: u64) -> Result<u64, EvalError> {
        let v = self.eval_signed(x, z)?;
        u64::try_from(v).map_err(|_| {
            EvalError(format!(
                "the value at x={x}, z={z} is {v}, which is negative"
            ))
        })
    }

    fn eval_signed(&self, x: u64, z: u64) -> Result<i64, EvalError> {
        let at = |what: String| EvalError(format!("{what} at x={x}, z={z}"));
        let var = |v: u64, name: &str| {
            i64::try_from(v).map_err(|_| at(format!("{name} does not fit in 63 bits")))
        };
        Ok(match self {
            Expr::Num(n) => *n,
            Expr::X => var(x, "x")?,
            Expr::Z => var(z, "z")?,
            Expr::Neg(e, c) => e
                .eval_signed(x, z)?
                .checked_neg()
                .ok_or_else(|| at(format!("overflow in '-' at column {c}")))?,
            Expr::Bin(op, a, b, c) => {
                let (a, b) = (a.eval_signed(x, z)?, b.eval_signed(x, z)?);
                let overflow = || at(format!("overflow in the operator at column {c}"));
                match op {
                    BinOp::Add => a.checked_add(b).ok_or_else(overflow)?,
                    BinOp::Sub => a.checked_sub(b).ok_or_else(overflow)?,
                    BinOp::Mul => a.checked_mul(b).ok_or_else(overflow)?,
                    BinOp::Div | BinOp::Rem if b == 0 => {
                        return Err(at(format!(
                            "division by zero in the operator at column {c}"
                        )))
                    }
                    BinOp::Div => floor_div(a, b).ok_or_else(overflow)?,
                    BinOp::Rem => floor_rem(a, b),
                }
            }
            Expr::Call(func, args, c) => {
                let a = args[0].eval_signed(x, z)?;
                match func {
                    Func::Min => a.min(args[1].eval_signed(x, z)?),
                    Func::Max => a.max(args[1].eval_signed(x, z)?),
                    Func::Floor => a,
                    Func::Log2 if a <= 0 => {
                        return Err(at(format!(
                            "log2 at column {c} of {a}, which is not positive"
                        )))
                    }
                    Func::Log2 => 63 - a.leading_zeros() as i64,
                    Func::Pow2 if !(0..=62).contains(&a) => {
                        return Err(at(format!(
                            "pow2 at column {c} of {a}: the exponent must be 0..=62"
                        )))
                    }
                    Func::Pow2 => 1i64 << a,
                }
            }
        })
    }
}

/// a - b⌊a/b⌋ for b ≠ 0 (the sign of b), computed without overflow.
fn floor_rem(a: i64, b: i64) -> i64 {
    let r = a.checked_rem(b).unwrap_or(0); // only i64::MIN % -1 fails, and its remainder is 0
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// ⌊a / b⌋ for b ≠ 0, None on overflow.
fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ev(s: &str, x: u64, z: u64) -> Result<u64, String> {
        parse(s)
            .map_err(|e| e.to_string())?
            .eval(x, z)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn evaluates_the_papers_functions() {
        for z in 0..100u64 {
            assert_eq!(ev("floor(z/2)", 0, z).unwrap(), z / 2);
            assert_eq!(ev("z / 4", 0, z).unwrap(), z / 4);
            let h = if z == 0 { 0 } else { (1u64 << z.ilog2()) - 1 };
            assert_eq!(ev("pow2(log2(max(z,1)))-1", 0, z).unwrap(), h);
            for x in [0u64, 1, 5, 17] {
                assert_eq!(ev("floor((x+z)/3)", x, z).unwrap(), (x + z) / 3);
                assert_eq!(
                    ev("min(x, z) * 2 + max(x,z) % 3", x, z).unwrap(),
                    x.min(z) * 2 + x.max(z) % 3
                );
            }
        }
    }

    #[test]
    fn precedence_associativity_and_floor_division() {
        assert_eq!(ev("2+3*4", 0, 0).unwrap(), 14);
        assert_eq!(ev("20-6-4", 0, 0).unwrap(), 10);
        assert_eq!(ev("100/5/2", 0, 0).unwrap(), 10);
        assert_eq!(ev("(-7)/2 + 10", 0, 0).unwrap(), 6); // ⌊-3.5⌋ = -4
        assert_eq!(ev("(-7)%3", 0, 0).unwrap(), 2);
        assert_eq!(ev("--3", 0, 0).unwrap(), 3);
        assert_eq!(ev("1_000", 0, 0).unwrap(), 1000);
    }

    #[test]
    fn errors_name_the_column_and_what_was_expected() {
        let e = parse("floor(z/2))").unwrap_err();
        assert_eq!(
            (e.column, e.message.as_str()),
            (
                11,
                "unexpected ')' at column 11: expected an operator or the end of the expression"
            )
        );
        let e = parse("(x+z))/3").unwrap_err();
        assert!(e.message.starts_with("unexpected ')' at column 6"), "{e}");
        let e = parse("z + ").unwrap_err();
        assert!(
            e.message
                .starts_with("end of expression at column 5: expected a number"),
            "{e}"
        );
        let e = parse("y+1").unwrap_err();
        assert!(e.message.starts_with("unknown name 'y' at column 1"), "{e}");
        let e = parse("2^z").unwrap_err();
        assert!(
            e.message.contains("column 2") && e.message.contains("pow2"),
            "{e}"
        );
        let e = parse("min(z)").unwrap_err();
        assert!(
            e.message.contains("column 6") && e.message.contains("min takes 2"),
            "{e}"
        );
        let e = parse("99999999999999999999").unwrap_err();
        assert!(e.message.contains("column 1"), "{e}");
    }

    #[test]
    fn evaluation_errors_are_errors() {
        assert!(ev("z/(z-z)", 0, 3)
            .unwrap_err()
            .contains("division by zero in the operator at column 2"));
        assert!(ev("z%0", 0, 3).unwrap_err().contains("division by zero"));
        assert!(ev("z-5", 0, 3).unwrap_err().contains("negative"));
        assert!(ev("log2(z)", 0, 0).unwrap_err().contains("log2"));
        assert!(ev("pow2(z)", 0, 63).unwrap_err().contains("pow2"));
        assert!(ev("pow2(62)*4", 0, 0).unwrap_err().contains("overflow"));
        assert!(ev("(0-pow2(62)-pow2(62))/(0-1)", 0, 0)
            .unwrap_err()
            .contains("overflow"));
        assert!(ev("x", u64::MAX, 0).unwrap_err().contains("63 bits"));
    }

    #[test]
    fn depth_is_bounded() {
        let deep = format!("{}z{}", "(".repeat(200), ")".repeat(200));
        assert!(parse(&deep).unwrap_err().message.contains("nests"));
        let long = "z+".repeat(600) + "z";
        assert!(parse(&long).unwrap_err().message.contains("characters"));
        // The longest accepted left-deep chain still evaluates.
        let chain = "z+".repeat(499) + "z";
        assert_eq!(ev(&chain, 0, 2).unwrap(), 1000);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// Random strings over the language's alphabet (and a few strangers): parsing returns
        /// Ok or a clean error whose column lies inside the string (or just past it), and
        /// evaluating whatever parsed returns Ok or a clean error.
        #[test]
        fn parser_never_panics(s in "[xz0-9+*/%(),\\- minaxflorgpw2^#é_]{0,60}") {
            match parse(&s) {
                Ok(e) => {
                    for (x, z) in [(0u64, 0u64), (1, 7), (13, 2), (u64::MAX, 5)] {
                        let _ = e.eval(x, z);
                    }
                }
                Err(err) => {
                    prop_assert!(err.column >= 1 && err.column <= s.chars().count() + 1);
                    let at = format!("column {}", err.column);
                    prop_assert!(err.message.contains(&at) || err.message.contains("characters"));
                }
            }
        }

        /// Token soup built from whole tokens reaches deeper into the grammar.
        #[test]
        fn token_soup_never_panics(toks in proptest::collection::vec(
            prop_oneof![
                Just("x"), Just("z"), Just("7"), Just("0"), Just("+"), Just("-"), Just("*"), Just("/"),
                Just("%"), Just("("), Just(")"), Just(","), Just("min("), Just("max("), Just("floor("),
                Just("log2("), Just("pow2("), Just("62"), Just("9223372036854775807")
            ], 0..80)) {
            let s: String = toks.concat();
            if let Ok(e) = parse(&s) {
                for (x, z) in [(0u64, 0u64), (3, 9), (62, 62)] {
                    let _ = e.eval(x, z);
                }
            }
        }
    }
}
