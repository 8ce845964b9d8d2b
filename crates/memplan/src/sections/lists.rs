//! A compressed list of lists: one allocation for the items, one for where each list
//! starts, instead of a `Vec` per list.

/// `items[starts[i]..starts[i + 1]]` is list `i`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lists<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy> Lists<T> {
    /// The lists `vecs`, in order.
    pub(crate) fn from_vecs(vecs: Vec<Vec<T>>) -> Lists<T> {
        let mut lists = Lists::with_capacity(vecs.len(), vecs.iter().map(Vec::len).sum());
        for v in vecs {
            lists.push_list(v);
        }
        lists
    }

    /// An empty list of lists, with room for `lists` lists and `items` items.
    pub(crate) fn with_capacity(lists: usize, items: usize) -> Lists<T> {
        let mut starts = Vec::with_capacity(lists + 1);
        starts.push(0);
        Lists {
            starts,
            items: Vec::with_capacity(items),
        }
    }

    /// Appends one list with the items given.
    pub(crate) fn push_list(&mut self, items: impl IntoIterator<Item = T>) {
        self.items.extend(items);
        self.starts.push(self.items.len() as u32);
    }

    /// The lists of `pairs` `(list, item)`, each list's items in the order given;
    /// `lists` lists, built in place (counted, then filled).
    pub(crate) fn from_pairs(
        lists: usize,
        pairs: impl Iterator<Item = (usize, T)> + Clone,
    ) -> Lists<T>
    where
        T: Default,
    {
        let mut starts = vec![0u32; lists + 1];
        for (l, _) in pairs.clone() {
            starts[l + 1] += 1;
        }
        for l in 0..lists {
            starts[l + 1] += starts[l];
        }
        let mut items = vec![T::default(); starts[lists] as usize];
        let mut next: Vec<u32> = starts[..lists].to_vec();
        for (l, x) in pairs {
            items[next[l] as usize] = x;
            next[l] += 1;
        }
        Lists { starts, items }
    }

    /// The number of lists.
    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// List `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[T] {
        self.range(i, i + 1)
    }

    /// The items of lists `lo..hi`, one after another.
    #[inline]
    pub(crate) fn range(&self, lo: usize, hi: usize) -> &[T] {
        &self.items[self.starts[lo] as usize..self.starts[hi] as usize]
    }
}
