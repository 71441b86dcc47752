// Placeholder until the crash writer lands.
print("ok")
