// The `Pictor` product: the whole Linux stack with one import.
@_exported import PictorCore
@_exported import PictorCrypto
@_exported import PictorCurl
@_exported import PictorDiskCache
@_exported import PictorRedis
@_exported import PictorVips
