#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import NIOHTTPTypes

import NIOConcurrencyHelpers
import NIOCore

/// How long a connection may take to send its requests, and how many may be open at once.
/// Slow or idle clients must not hold the server's connections for ever (slowloris).
public struct ConnectionLimits: Sendable {
    /// A new connection must deliver its first request head within this time.
    public var headerTimeout: TimeAmount = .seconds(10)
    /// A request's body must arrive completely within this time of its head.
    public var bodyTimeout: TimeAmount = .seconds(30)
    /// A kept-alive connection must deliver its next request head within this time of the last response.
    public var idleTimeout: TimeAmount = .seconds(60)
    /// Connections open at once; more are closed as soon as they are accepted.
    public var maxConnections = 1_000

    public init() {}
}

/// Counts the open connections of one server, shared by every connection's guard.
package final class ConnectionCounter: Sendable {
    private let count = NIOLockedValueBox(0)

    package init() {}

    /// Takes a place; false when all `limit` places are taken.
    func enter(limit: Int) -> Bool {
        count.withLockedValue { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    func leave() { count.withLockedValue { $0 -= 1 } }
}

/// Sits after HTTP decoding on every connection: closes the connection when a request head or
/// body does not arrive in time, and refuses connections past the limit. One deadline is armed
/// at a time: waiting for a head (header or idle timeout), or for the rest of a body.
/// `PublicDocumentByteHandler` answers some requests before they are decoded, and tells it
/// directly; it is told here when a response to a request it handed on has ended.
///
/// Moving a deadline later (every response arms the idle timeout) only records it: the timer
/// already set finds it when it fires and waits on. A timer is set anew only when the deadline
/// comes sooner, so a busy connection costs no timer work per request.
package final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let counter: ConnectionCounter
    private var counted = false
    /// When the connection is closed unless it makes progress; nil while a response is awaited.
    private var deadline: NIODeadline?
    /// The timer, and when it fires (never later than `deadline`).
    private var timer: Scheduled<Void>?
    private var timerDeadline = NIODeadline.distantFuture
    private var context: ChannelHandlerContext?
    /// Called once the last part of a response has been passed on toward the socket.
    var onResponseEnd: (() -> Void)?

    package init(limits: ConnectionLimits, counter: ConnectionCounter) {
        self.limits = limits
        self.counter = counter
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start(context: context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        guard !counted else { return }
        guard counter.enter(limit: limits.maxConnections) else {
            context.close(promise: nil)
            return
        }
        counted = true
        arm(limits.headerTimeout)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        release()
        self.context = nil
    }

    private func release() {
        timer?.cancel()
        timer = nil
        deadline = nil
        if counted {
            counted = false
            counter.leave()
        }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(limits.bodyTimeout)
        case .end: deadline = nil
        case .body: break
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The response is complete: the connection now waits for its next request.
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        arm(limits.idleTimeout)
        // Written first: what the callback writes (answers held behind this response) follows it.
        context.write(data, promise: promise)
        onResponseEnd?()
    }

    /// `PublicDocumentByteHandler` answered a request itself.
    func answered() { arm(limits.idleTimeout, from: Self.coarseNow()) }

    private func arm(_ timeout: TimeAmount, from now: NIODeadline = .now()) {
        guard counted else { return }
        let at = now + timeout
        deadline = at
        if timer == nil || at < timerDeadline { setTimer(at) }
    }

    /// NIO's clock (CLOCK_MONOTONIC) read coarsely: at most a few milliseconds behind, which
    /// only moves an idle deadline of seconds that much sooner, for a fraction of the reading's
    /// cost on every answer of the byte path (no clock source is read, only the kernel's last tick).
    static func coarseNow() -> NIODeadline {
        #if os(Linux)
        var time = timespec()
        guard clock_gettime(CLOCK_MONOTONIC_COARSE, &time) == 0 else { return .now() }
        return .uptimeNanoseconds(UInt64(clamping: time.tv_sec) &* 1_000_000_000 &+ UInt64(clamping: time.tv_nsec))
        #else
        return .now()
        #endif
    }

    private func setTimer(_ at: NIODeadline) {
        guard let context else { return }
        timer?.cancel()
        timerDeadline = at
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: at) { [self] in
            timer = nil
            guard let deadline else { return }
            if deadline <= .now() {
                context.close(promise: nil)
            } else {
                setTimer(deadline)
            }
        }
    }
}
