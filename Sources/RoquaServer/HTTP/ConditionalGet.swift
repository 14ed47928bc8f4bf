import HTTPTypes
import Hummingbird

/// Answers that browsers revalidate: `Cache-Control: private, no-cache` with an `ETag`, and 304
/// (nothing sent again) to a request whose `If-None-Match` names that tag.
enum ConditionalGet {
    /// The headers of a private answer tagged `tag` (quoted), revalidated on each use.
    static func headers(tag: String) -> HTTPFields { [.cacheControl: "private, no-cache", .eTag: tag] }

    /// 304 with `headers` when `request` already holds the answer tagged `tag`, else nil.
    static func notModified(_ request: Request, tag: String, headers: HTTPFields) -> Response? {
        let held = request.headers[.ifNoneMatch]?.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == tag }
        return held == true ? Response(status: .notModified, headers: headers) : nil
    }
}
