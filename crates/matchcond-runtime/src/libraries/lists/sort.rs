//! The unstable sort of Go's `sort.Slice` (pattern-defeating quicksort, as Go's `sort`
//! package implements it since Go 1.19), reproduced step for step so that elements that
//! compare equal end up in the same order as in cel-go's `sort()` and `sortBy()`.
//!
//! Lists of up to 12 elements are sorted by insertion sort, which keeps equal elements in
//! their original order; longer lists may reorder equal elements, exactly as Go does.

/// The hint the pivot choice gives about the slice's order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

/// Go's `bits.Len`: the number of bits needed to represent `n`.
fn bit_len(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

/// Sorts `v` as `sort.Slice(v, less)` does in Go.
pub(super) fn sort_slice<T>(v: &mut [T], less: impl FnMut(&T, &T) -> bool) {
    let len = v.len();
    let limit = bit_len(len);
    let mut s = Sorter { v, less };
    s.pdqsort(0, len, limit);
}

struct Sorter<'s, T, F> {
    v: &'s mut [T],
    less: F,
}

impl<T, F: FnMut(&T, &T) -> bool> Sorter<'_, T, F> {
    /// `less(v[i], v[j])`; false for indices out of bounds (which the algorithm never uses).
    fn lt(&mut self, i: usize, j: usize) -> bool {
        match (self.v.get(i), self.v.get(j)) {
            (Some(a), Some(b)) => (self.less)(a, b),
            _ => false,
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        if i < self.v.len() && j < self.v.len() {
            self.v.swap(i, j);
        }
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.lt(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.lt(first + child, first + child + 1) {
                child += 1;
            }
            if !self.lt(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let first = a;
        let hi = b - a;
        for i in (0..=(hi - 1) / 2).rev() {
            self.sift_down(i, hi, first);
        }
        for i in (0..hi).rev() {
            self.swap(first, first + i);
            self.sift_down(0, i, first);
        }
    }

    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: u32) {
        const MAX_INSERTION: usize = 12;
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse_range(a, b);
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced
                && was_partitioned
                && hint == Hint::Increasing
                && self.partial_insertion_sort(a, b)
            {
                return;
            }
            if a > 0 && !self.lt(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already) = self.partition(a, b, pivot);
            was_partitioned = already;
            let (left, right) = (mid - a, b - mid);
            let balance_threshold = length / 8;
            if left < right {
                was_balanced = left >= balance_threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= balance_threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        let (_, j, swapped) = self.sweep(a + 1, b - 1, |s, i| s.lt(i, a), |s, j| !s.lt(j, a));
        self.swap(j, a);
        (j, !swapped)
    }

    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (i, _, _) = self.sweep(a + 1, b - 1, |s, i| !s.lt(a, i), |s, j| s.lt(a, j));
        i
    }

    /// Moves `i` up past the elements `left` keeps and `j` down past those `right` keeps,
    /// swapping the pair where both stop, until they cross; says whether it swapped.
    fn sweep(
        &mut self,
        mut i: usize,
        mut j: usize,
        left: impl Fn(&mut Self, usize) -> bool,
        right: impl Fn(&mut Self, usize) -> bool,
    ) -> (usize, usize, bool) {
        let mut swapped = false;
        loop {
            while i <= j && left(self, i) {
                i += 1;
            }
            while i <= j && right(self, j) {
                j -= 1;
            }
            if i > j {
                return (i, j, swapped);
            }
            self.swap(i, j);
            swapped = true;
            i += 1;
            j -= 1;
        }
    }

    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.lt(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            // Shift the smaller one to the left (down to index 1, as Go does).
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !self.lt(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            // Shift the greater one to the right.
            if b - i >= 2 {
                let mut j = i + 1;
                while j < b {
                    if !self.lt(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j += 1;
                }
            }
        }
        false
    }

    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length >= 8 {
            let mut random = length as u64;
            let modulus = 1usize.checked_shl(bit_len(length)).unwrap_or(0);
            let mid = a + (length / 4) * 2;
            for idx in mid - 1..=mid + 1 {
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                let mut other = (random as usize) & modulus.wrapping_sub(1);
                if other >= length {
                    other -= length;
                }
                self.swap(idx, a + other);
            }
        }
    }

    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let mut i = a + l / 4;
        let mut j = a + l / 4 * 2;
        let mut k = a + l / 4 * 3;
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        match swaps {
            0 => (j, Hint::Increasing),
            MAX_SWAPS => (j, Hint::Decreasing),
            _ => (j, Hint::Unknown),
        }
    }

    fn order2(&mut self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.lt(b, a) {
            *swaps += 1;
            (b, a)
        } else {
            (a, b)
        }
    }

    fn median(&mut self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, _c) = self.order2(b, c, swaps);
        let (_a, b) = self.order2(a, b, swaps);
        b
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn sorts_like_a_sort() {
        let mut seed = 7;
        for len in [0usize, 1, 2, 5, 12, 13, 49, 50, 51, 200, 1000] {
            for modulo in [3u64, 1000] {
                let mut v: Vec<u64> = (0..len).map(|_| lcg(&mut seed) % modulo).collect();
                let mut expected = v.clone();
                expected.sort();
                sort_slice(&mut v, |a, b| a < b);
                assert_eq!(v, expected, "len {len}");
            }
            // Already sorted, reversed, and all equal.
            let mut v: Vec<usize> = (0..len).collect();
            sort_slice(&mut v, |a, b| a < b);
            assert!(v.windows(2).all(|w| w[0] <= w[1]));
            let mut v: Vec<usize> = (0..len).rev().collect();
            sort_slice(&mut v, |a, b| a < b);
            assert!(v.windows(2).all(|w| w[0] <= w[1]));
        }
    }

    #[test]
    fn short_slices_are_stable() {
        let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd'), (0, 'e')];
        sort_slice(&mut v, |a, b| a.0 < b.0);
        assert_eq!(v, vec![(0, 'e'), (1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
    }

    #[test]
    fn never_panics_with_an_inconsistent_order() {
        let mut seed = 3;
        let mut v: Vec<u64> = (0..500).map(|_| lcg(&mut seed)).collect();
        let mut flip = 0u64;
        sort_slice(&mut v, |_, _| {
            flip = flip.wrapping_add(1);
            flip.is_multiple_of(3)
        });
        assert_eq!(v.len(), 500);
    }
}
