/// Something that frees memory when ``MemoryPressureMonitor`` reports pressure: ``MemoryCache``
/// and ``ImageCache`` conform.
public protocol MemoryPressureResponding: AnyObject, Sendable {
    /// Frees memory in proportion to `level`. Called on the monitor's thread; must not block.
    func handleMemoryPressure(_ level: MemoryPressureLevel)
}

extension MemoryCache: MemoryPressureResponding {}
extension ImageCache: MemoryPressureResponding {}
