//! Games with a pass (SPEC §4, §6; seed `chocolate-games-with-a-pass.txt`).
//!
//! - [`mex`]: the minimum excluded value, reusable across positions.
//! - [`gp`]: two-heap Nim with a pass, G_P(x,y) [Def 12], and Lemmas 6–8.
//! - [`expr`]: the expression language for F(x,z) and h(z).
//! - [`cb`]: Grundy numbers of the 3-D bar CB(F,x,y,z) with and without a pass, the NS
//!   property [Def 8], Theorems 2–4, Corollaries 2–4 and Table 1.
//! - [`nimpass`]: K-heap Nim with one shared pass, one bit per line (SPEC §4).

pub mod backend;
pub mod cb;
pub mod expr;
pub mod gp;
pub mod mex;
pub mod nimpass;

/// One claim checked over a finite range: a lemma, a theorem, or a property of F.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Claim {
    pub name: String,
    pub statement: String,
    /// "theorem" claims decide the exit status; "property" claims (is F monotone? does the
    /// nim-sum formula hold?) are observations that a theorem then relates.
    pub kind: &'static str,
    pub holds: bool,
    /// The range checked, e.g. "0 <= x,y < 13".
    pub range: String,
    /// The first counterexample, if any.
    pub counterexample: Option<String>,
}

impl Claim {
    pub fn theorem(
        name: &str,
        statement: &str,
        range: &str,
        counterexample: Option<String>,
    ) -> Claim {
        Claim {
            name: name.into(),
            statement: statement.into(),
            kind: "theorem",
            holds: counterexample.is_none(),
            range: range.into(),
            counterexample,
        }
    }

    pub fn property(
        name: &str,
        statement: &str,
        range: &str,
        counterexample: Option<String>,
    ) -> Claim {
        Claim {
            kind: "property",
            ..Claim::theorem(name, statement, range, counterexample)
        }
    }
}
