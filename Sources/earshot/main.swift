import EarshotCore

print("earshot: no commands yet")
