import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RoquaChatCore

/// Turns every failure into a JSON error body; unexpected errors become a 500 that says nothing
/// about the internals and are logged.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ChatRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ChatServerError {
            if case .storage = error { context.logger.error("storage failure", metadata: ["error": "\(error)"]) }
            return error.response
        } catch let error as HTTPError {
            switch error.status {
            case .notFound: return ChatServerError.routeNotFound(request.uri.path.prefix(200).description).response
            case .contentTooLarge: return ChatServerError.bodyTooLarge(limit: context.maxUploadSize).response
            case .methodNotAllowed: return ChatServerError.methodNotAllowed(request.uri.path.prefix(200).description).response
            default:
                let body = APIErrorBody(
                    code: error.status.code >= 500 ? .internalError : .invalidRequest,
                    message: error.body ?? error.status.reasonPhrase)
                return JSONResponse.make(body, status: error.status)
            }
        } catch {
            context.logger.error("request failed", metadata: ["route": "\(context.endpointPath ?? "?")", "error": "\(error)"])
            return JSONResponse.make(APIErrorBody(code: .internalError, message: "internal error"), status: .internalServerError)
        }
    }
}

/// Requires a valid access token and puts the actor into the context.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ChatRequestContext
    let auth: AuthService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw ChatServerError.missingToken }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw ChatServerError.missingToken }
        let actor = try await auth.authenticate(bearer: String(parts[1]).trimmingCharacters(in: .whitespaces))
        var context = context
        context.actor = actor
        context.logger[metadataKey: "user"] = "\(actor.userID)"
        return try await next(request, context)
    }
}
