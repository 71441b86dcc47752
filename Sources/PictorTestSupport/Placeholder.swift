public enum PictorTestSupportModule {}
