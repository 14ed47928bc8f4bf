import Hummingbird

/// The per-request context: Hummingbird's core storage and, behind `AuthMiddleware`, the actor.
package struct ChatRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// Set by `AuthMiddleware` on protected routes.
    package var actor: Actor?

    /// The client's IP address as the connection says ("" when the transport has none).
    package let clientAddress: String

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? ""
    }

    /// Bodies are read explicitly with per-route limits (`ChatBody`); this bounds anything else.
    package var maxUploadSize: Int { 64 * 1024 }

    /// The authenticated actor.
    /// - Throws: `missingToken` on a route that forgot `AuthMiddleware` (a bug, answered as 401).
    package func requireActor() throws -> Actor {
        guard let actor else { throw ChatServerError.missingToken }
        return actor
    }
}
