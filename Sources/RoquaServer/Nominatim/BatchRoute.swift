import Foundation
import Hummingbird
import RoquaServeInput

/// `POST /reverse/batch`: streamed both ways — answers go out while the upload is still coming in.
enum BatchRoute {
    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.post("/reverse/batch") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            var format: BatchLines.Format?
            if let name = query["format"] {
                guard let chosen = BatchLines.Format(rawValue: name) else {
                    throw APIError.badRequest("Parameter 'format' must be ndjson or csv")
                }
                format = chosen
            } else if let type = request.headers[.contentType]?.lowercased() {
                if type.hasPrefix("text/csv") { format = .csv }
                if type.hasPrefix("application/x-ndjson") || type.hasPrefix("application/ndjson") { format = .ndjson }
            }
            let language = NominatimRequest.language(query["accept-language"] ?? request.headers[.acceptLanguage])
            let resolvers = state.resolvers, chosen = format
            let body = ResponseBody { writer in
                var stream = BatchStream(resolvers: resolvers, language: language, format: chosen)
                var output: [UInt8] = []
                for try await chunk in request.body {
                    stream.feed(chunk.readableBytesView, into: &output)
                    // Answer what this chunk completed before reading on: the client sees results
                    // while it is still sending, and the writer's back-pressure bounds memory.
                    if !output.isEmpty {
                        try await writer.write(ByteBuffer(bytes: output))
                        output.removeAll(keepingCapacity: true)
                    }
                }
                stream.finish(into: &output)
                if !output.isEmpty { try await writer.write(ByteBuffer(bytes: output)) }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson; charset=utf-8"], body: body)
        }
    }
}
