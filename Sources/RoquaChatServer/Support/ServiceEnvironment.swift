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
