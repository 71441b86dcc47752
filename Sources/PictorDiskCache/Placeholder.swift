public enum PictorDiskCacheModule {}
