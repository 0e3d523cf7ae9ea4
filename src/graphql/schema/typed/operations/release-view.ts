/** The typed list's and get's `release` argument; src/releases/operations/preview.ts decides what it reads. */
export const RELEASE_ARG = 'A release id: read the content as it will be once that release is published (state is ignored; never cached).';
