public enum PictorVipsModule {}
