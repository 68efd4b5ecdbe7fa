//! The P-test of Thm 2.3 and its row/column form.
//!
//! Tests: this file's unit tests.

/// Thm 2.3: cell (i,j) (1-based) of C(m,n) is a P-position iff the four Nim piles
/// (i-1, j-1, m-i, n-j) have nim-sum zero.
#[inline]
pub fn p_cell(m: u64, n: u64, i: u64, j: u64) -> bool {
    debug_assert!(1 <= i && i <= m && 1 <= j && j <= n);
    (i - 1) ^ (j - 1) ^ (m - i) ^ (n - j) == 0
}

/// The position of cell (i,j) (1-based) of C(m,n) as four Nim piles (i-1, j-1, m-i, n-j).
#[inline]
pub fn piles(m: u64, n: u64, i: u64, j: u64) -> [u64; 4] {
    debug_assert!(1 <= i && i <= m && 1 <= j && j <= n);
    [i - 1, j - 1, m - i, n - j]
}

/// Row key r(i) = (i-1) ^ (m-i): cell (i,j) is P iff r(i) == c(j)
/// (docs/mathematics.md §1, fast form).
#[inline]
pub fn row_key(m: u64, i: u64) -> u64 {
    (i - 1) ^ (m - i)
}

/// Column key c(j) = (j-1) ^ (n-j); the same function as [`row_key`] with n for m.
#[inline]
pub fn col_key(n: u64, j: u64) -> u64 {
    row_key(n, j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_form_equals_p_test() {
        for (m, n) in [(11, 11), (7, 13), (30, 17), (1, 9)] {
            for i in 1..=m {
                for j in 1..=n {
                    assert_eq!(p_cell(m, n, i, j), row_key(m, i) == col_key(n, j));
                }
            }
        }
    }

    #[test]
    fn terminal_corner_cells() {
        // C(1,1): the lone poisoned square is a P-position (the mover cannot move).
        assert!(p_cell(1, 1, 1, 1));
        // C(1,2): either cell can cut the other away, so both are N.
        assert!(!p_cell(1, 2, 1, 1) && !p_cell(1, 2, 1, 2));
    }
}
