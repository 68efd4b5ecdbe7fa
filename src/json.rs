//! How chompute's reports serialise counts that can pass 2^53.
//!
//! A JSON reader may keep numbers as doubles, exact only to 2^53, so the reports' counts are
//! JSON strings: a field marked `#[serde(serialize_with = "chompute::json::count")]` writes
//! its integer as a string. A format with exact integers of any size, such as the Python
//! objects the Python module builds from the same structs, serialises inside
//! [`exact_integers`], where the same fields are numbers.
//!
//! Tests: this file's unit tests; the CLI's JSON in tests/pictures/cli_outputs.rs and
//! tests/games/chomp/two_player.rs; the Python module's dicts in python/tests.

use serde::Serializer;
use std::cell::Cell;

thread_local! {
    static EXACT: Cell<bool> = const { Cell::new(false) };
}

/// Serialise a count: a string, or inside [`exact_integers`] a number.
pub fn count<T, S>(v: &T, s: S) -> Result<S::Ok, S::Error>
where
    T: Copy + Into<u128> + std::fmt::Display,
    S: Serializer,
{
    if EXACT.get() {
        let v: u128 = (*v).into();
        match u64::try_from(v) {
            Ok(small) => s.serialize_u64(small),
            Err(_) => s.serialize_u128(v),
        }
    } else {
        s.collect_str(v)
    }
}

/// Serialise a list of counts, each as [`count`] does.
pub fn counts<S: Serializer>(v: &[u64], s: S) -> Result<S::Ok, S::Error> {
    if EXACT.get() {
        s.collect_seq(v)
    } else {
        s.collect_seq(v.iter().map(|x| x.to_string()))
    }
}

/// Run `f` (which serialises) with counts as numbers, for formats whose integers are exact.
pub fn exact_integers<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            EXACT.set(self.0);
        }
    }
    let _restore = Restore(EXACT.replace(true));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Row {
        n: u32,
        #[serde(serialize_with = "count")]
        big: u64,
        #[serde(serialize_with = "count")]
        huge: u128,
        #[serde(serialize_with = "counts")]
        list: Vec<u64>,
    }

    #[test]
    fn counts_are_strings_in_json_and_numbers_inside_exact_integers() {
        let row = Row {
            n: 3,
            big: 1 << 60,
            huge: 1 << 100,
            list: vec![1, u64::MAX],
        };
        let text = serde_json::to_string(&row).unwrap();
        assert_eq!(
            text,
            r#"{"n":3,"big":"1152921504606846976","huge":"1267650600228229401496703205376","list":["1","18446744073709551615"]}"#
        );
        let row = Row { huge: 5, ..row };
        let value = exact_integers(|| serde_json::to_value(&row)).unwrap();
        assert_eq!(value["huge"], serde_json::json!(5));
        assert_eq!(value["big"], serde_json::json!(1u64 << 60));
        assert_eq!(value["list"][1], serde_json::json!(u64::MAX));
        // The flag is restored afterwards.
        assert!(serde_json::to_string(&row)
            .unwrap()
            .contains(r#""big":"1152921504606846976""#));
    }
}
