import Foundation
import NIOCore
import NIOPosix

// `scripts/bench-publish.sh`: the floor of SwiftNIO on this machine, for the public URL's figures.
// A server that answers every request head with the same bytes (the file named), finding only
// where each head ends: no parsing, no lookup, no formatting. What it reaches is the most any
// SwiftNIO server can; nginx ÷ it tells what is left to gain above NIO.
//
//   RiversNIOFloor RESPONSE-FILE PORT [THREADS]

final class FixedAnswer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let response: ByteBuffer
    /// How much of "\r\n\r\n" the bytes so far end with.
    private var matched = 0

    init(response: ByteBuffer) { self.response = response }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var heads = 0
        unwrapInboundIn(data).withUnsafeReadableBytes { bytes in
            for byte in bytes {
                switch (matched, byte) {
                case (0, 13), (2, 13): matched += 1
                case (1, 10): matched = 2
                case (3, 10): matched = 0; heads += 1
                case (_, 13): matched = 1
                default: matched = 0
                }
            }
        }
        guard heads > 0 else { return }
        for _ in 0..<heads { context.write(wrapOutboundOut(response), promise: nil) }
        context.flush()
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let port = Int(arguments[2]), let threads = Int(arguments.count > 3 ? arguments[3] : "1"), threads > 0 else {
    print("usage: RiversNIOFloor RESPONSE-FILE PORT [THREADS]")
    exit(2)
}
let bytes = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: arguments[1])))
let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.maxMessagesPerRead, value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FixedAnswer(response: bytes)) }
    }
    .bind(host: "127.0.0.1", port: port).wait()
try channel.closeFuture.wait()
