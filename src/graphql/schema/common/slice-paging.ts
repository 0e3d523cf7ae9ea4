/**
 * Where a page sits when no total was counted (nothing selected `total` or `lastPage`): the list read
 * one row past the page, so the next page exists exactly when that row came back. `total` is NaN so
 * that anything reading it after all fails loudly in Int serialization instead of lying.
 */
export const slicePosition = (page: number, perPage: number, hasMore: boolean) => ({
  total: Number.NaN,
  currentPage: page,
  perPage,
  lastPage: hasMore ? page + 1 : page,
});
