import Logging

/// What every service works with: the store, the clock, the rules' numbers and the logger.
package struct ServiceEnvironment: Sendable {
    package let store: any ChatStore
    package let clock: any ChatClock
    package let settings: ChatSettings
    package let logger: Logger

    package init(store: any ChatStore, clock: any ChatClock, settings: ChatSettings, logger: Logger) {
        self.store = store
        self.clock = clock
        self.settings = settings
        self.logger = logger
    }
}

/// A service over a `ServiceEnvironment`, reaching its parts directly.
package protocol EnvironmentService: Sendable {
    var environment: ServiceEnvironment { get }
}

extension EnvironmentService {
    var store: any ChatStore { environment.store }
    var clock: any ChatClock { environment.clock }
    var settings: ChatSettings { environment.settings }
    var logger: Logger { environment.logger }
}
