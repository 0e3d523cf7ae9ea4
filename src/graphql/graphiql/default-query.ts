/** The document GraphiQL opens with: how to fill the headers, and a first query of every project. */
export const DEFAULT_QUERY = `# Set the project-id and Authorization headers (Headers tab below), then
# re-fetch the schema: every collection of the project appears with its own type,
# list query (e.g. posts), single query (post) and mutations (createPost, ...).

query Project {
  project {
    uuid
    name
    defaultLocale
    locales
  }
}

# query Posts($perPage: Int = 10) {
#   posts(perPage: $perPage, sort: [publishedAt_DESC], where: { title: { like: "news" } }) {
#     data { uuid title publishedAt }
#     pageInfo { total currentPage lastPage }
#   }
# }
`;
