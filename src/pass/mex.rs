//! The minimum excluded value [Def 4(ii)]: the least non-negative integer not in a set.
//!
//! [`Mex`] is reused across positions: each position starts a new generation, so clearing
//! costs nothing and the marks array grows only to the largest value ever inserted.
//!
//! Tests: this file's unit tests.

/// A reusable mex calculator over small non-negative integers.
#[derive(Debug, Default, Clone)]
pub struct Mex {
    /// `marks[v] == generation` iff v was inserted since the last [`Mex::begin`].
    marks: Vec<u32>,
    generation: u32,
}

impl Mex {
    /// An empty set.
    pub fn new() -> Mex {
        Mex {
            marks: Vec::new(),
            generation: 1,
        }
    }

    /// Start a new, empty set.
    pub fn begin(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 2^32 generations stale marks could alias: clear once and start again.
            self.marks.fill(0);
            self.generation = 1;
        }
    }

    /// Add `v` to the current set.
    #[inline]
    pub fn insert(&mut self, v: u32) {
        let v = v as usize;
        if v >= self.marks.len() {
            self.marks.resize((v + 1).max(2 * self.marks.len()), 0);
        }
        self.marks[v] = self.generation;
    }

    /// The least value not inserted since the last [`Mex::begin`].
    pub fn mex(&self) -> u32 {
        let g = self.generation;
        self.marks
            .iter()
            .position(|&m| m != g)
            .unwrap_or(self.marks.len()) as u32
    }
}

/// mex of a finite collection, the obviously-correct way (for reference implementations).
pub fn mex_of(values: impl IntoIterator<Item = u32>) -> u32 {
    let set: std::collections::BTreeSet<u32> = values.into_iter().collect();
    (0..)
        .find(|v| !set.contains(v))
        .expect("a finite set misses some value")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mex_engine_matches_set_mex() {
        let mut m = Mex::new();
        let cases: [&[u32]; 6] = [
            &[],
            &[0],
            &[1, 2],
            &[0, 1, 2, 4],
            &[3, 0, 1, 2],
            &[5, 0, 0, 1],
        ];
        for values in cases {
            m.begin();
            for &v in values {
                m.insert(v);
            }
            assert_eq!(m.mex(), mex_of(values.iter().copied()), "{values:?}");
        }
    }
}
